// What the daemon learns from the kernel without privileges, polling or D-Bus: the network coming back
// (rtnetlink) and the clock jumping or the machine resuming (a cancel-on-set timerfd). Header only: macros and
// structs of linux/netlink.h, linux/rtnetlink.h and sys/timerfd.h that Swift cannot import as they are.
#pragma once
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <net/if.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

/// A NETLINK_ROUTE socket subscribed to links, IPv4/IPv6 addresses and routes; -1 with errno on failure.
static inline int sysev_open_route_socket(void) {
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
    if (fd < 0) return -1;
    struct sockaddr_nl address;
    memset(&address, 0, sizeof address);
    address.nl_family = AF_NETLINK;
    address.nl_groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE;
    if (bind(fd, (struct sockaddr *)&address, sizeof address) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

// What a batch of route socket messages said (sysev_drain_route_socket's bits).
/// The network may be back: an address or a route added, a link up and running.
#define SYSEV_NETWORK_BACK 1
/// The way traffic leaves may have changed: a route added or removed, a link added, changed or removed (a VPN's
/// tunnel coming or going).
#define SYSEV_PATH_CHANGED 2

/// Reads every pending message of the route socket. Returns the bits of what they said (0 when nothing that
/// matters), -1 with errno on failure (ENOBUFS: messages were lost, which the caller takes as every change).
static inline int sysev_drain_route_socket(int fd) {
    char buffer[16384] __attribute__((aligned(NLMSG_ALIGNTO)));
    int returned = 0;
    for (;;) {
        ssize_t length = recv(fd, buffer, sizeof buffer, 0);
        if (length < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return returned;
            return -1;
        }
        if (length == 0) return returned;
        int remaining = (int)length;
        for (struct nlmsghdr *header = (struct nlmsghdr *)buffer; NLMSG_OK(header, remaining);
             header = NLMSG_NEXT(header, remaining)) {
            switch (header->nlmsg_type) {
            case RTM_NEWADDR:
                returned |= SYSEV_NETWORK_BACK;
                break;
            case RTM_NEWROUTE:
                returned |= SYSEV_NETWORK_BACK | SYSEV_PATH_CHANGED;
                break;
            case RTM_DELROUTE:
            case RTM_DELLINK:
                returned |= SYSEV_PATH_CHANGED;
                break;
            case RTM_NEWLINK: {
                struct ifinfomsg *link = NLMSG_DATA(header);
                if ((link->ifi_flags & IFF_UP) && (link->ifi_flags & IFF_RUNNING)) returned |= SYSEV_NETWORK_BACK;
                returned |= SYSEV_PATH_CHANGED;
                break;
            }
            default:
                break;
            }
        }
    }
}

/// A CLOCK_REALTIME timerfd armed for the far future with TFD_TIMER_CANCEL_ON_SET: it becomes readable (its
/// read fails with ECANCELED) when the wall clock is set and when the machine resumes from suspend.
/// -1 with errno on failure.
static inline int sysev_open_clock_change_timer(void) {
    int fd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC | TFD_NONBLOCK);
    if (fd < 0) return -1;
    return fd;
}

/// Arms (or re-arms after it fired) the clock-change timer. 0, or -1 with errno.
static inline int sysev_arm_clock_change_timer(int fd) {
    uint64_t expirations;
    // Consumes the cancellation (ECANCELED) or a (never expected) expiry; EAGAIN when there is none.
    (void)read(fd, &expirations, sizeof expirations);
    struct itimerspec far;
    memset(&far, 0, sizeof far);
    far.it_value.tv_sec = (time_t)INT32_MAX;
    return timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &far, NULL);
}

/// The time the machine has spent suspended since boot, in nanoseconds: CLOCK_BOOTTIME counts it,
/// CLOCK_MONOTONIC does not.
static inline int64_t sysev_suspended_nanoseconds(void) {
    struct timespec boot, monotonic;
    clock_gettime(CLOCK_MONOTONIC, &monotonic);
    clock_gettime(CLOCK_BOOTTIME, &boot);
    return ((int64_t)boot.tv_sec - (int64_t)monotonic.tv_sec) * 1000000000LL
        + ((int64_t)boot.tv_nsec - (int64_t)monotonic.tv_nsec);
}

static inline int sysev_errno(void) { return errno; }
