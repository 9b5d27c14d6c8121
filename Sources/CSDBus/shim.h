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
#include <sys/prctl.h>
#include <unistd.h>
#include <systemd/sd-bus.h>

/// errno is a macro over a thread-local; Swift cannot read it directly.
static inline int csdbus_errno(void) { return errno; }

/// Names the calling thread (Linux keeps 15 bytes) so `top -H` shows it: the short-lived `sd-bus-connect` thread.
/// prctl is variadic, so Swift cannot call it directly.
static inline void csdbus_name_this_thread(const char *name) { (void)prctl(PR_SET_NAME, name, 0, 0, 0); }

#endif
