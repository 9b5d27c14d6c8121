// What the descriptor waiter needs from Linux that Swift cannot call directly: prctl and syscall are variadic,
// and gettid and eventfd's flags are not all imported by Glibc's module. Header only.
#pragma once
#include <errno.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/// Names the calling thread as the kernel shows it (/proc/PID/task/TID/comm, top -H); at most 15 bytes are kept.
static inline void cwait_name_this_thread(const char *name) { (void)prctl(PR_SET_NAME, name, 0, 0, 0); }

/// The calling thread's kernel id.
static inline int32_t cwait_thread_id(void) { return (int32_t)syscall(SYS_gettid); }

/// A non-blocking eventfd that other threads write to wake the waiter; -1 with errno on failure.
static inline int cwait_open_wake(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

/// Makes the eventfd readable (its counter stays readable until drained).
static inline void cwait_wake(int fd) {
    uint64_t one = 1;
    (void)!write(fd, &one, sizeof one);
}

/// Empties the eventfd's counter; EAGAIN when it was already empty.
static inline void cwait_drain(int fd) {
    uint64_t count;
    (void)!read(fd, &count, sizeof count);
}

static inline int cwait_errno(void) { return errno; }
