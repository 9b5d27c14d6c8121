// libsystemd's sd-bus, seen from Swift. Only the `DBus` module imports this.
//
// sd-bus's convenience calls (sd_bus_call_method, sd_bus_message_append, sd_bus_message_read) are variadic,
// which Swift cannot call; `DBus` uses the non-variadic API underneath them instead (new_method_call,
// append_basic, open_container, call_async, peek_type, read_basic, match_signal_async). None of these changed
// between systemd 252 (Debian 12) and 257 (Debian 13), where the same Swift builds and its tests pass; 257 only
// added calls (sd_bus_pending_method_calls, sd_bus_message_new_signal_to, pidfd credentials) that are not used.
#ifndef FORECASTD_CSDBUS_SHIM_H
#define FORECASTD_CSDBUS_SHIM_H

#include <errno.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <systemd/sd-bus.h>

/// errno is a macro over a thread-local; Swift cannot read it directly.
static inline int csdbus_errno(void) { return errno; }

/// Names the calling thread (Linux keeps 15 bytes) so `top -H` and the tests can find the bus thread.
/// prctl is variadic, so Swift cannot call it directly.
static inline void csdbus_name_this_thread(const char *name) { (void)prctl(PR_SET_NAME, name, 0, 0, 0); }

/// The calling thread's kernel ID (its entry in /proc/self/task), for tests that watch the bus thread.
/// syscall is variadic and gettid needs glibc 2.30 with _GNU_SOURCE, so Swift can call neither directly.
static inline pid_t csdbus_thread_id(void) { return (pid_t)syscall(SYS_gettid); }

#endif
