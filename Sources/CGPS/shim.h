// The only C in forecastd: libgps, the gpsd client library, seen from Swift.
#ifndef FORECASTD_CGPS_SHIM_H
#define FORECASTD_CGPS_SHIM_H

#include <errno.h>
#include <gps.h>
#include <sys/prctl.h>

// The Swift side reads gps_data_t fields whose layout changes between libgps API
// majors (see libgps(3)): refuse to build against one this code was not written for.
#if GPSD_API_MAJOR_VERSION != 11
#error "forecastd needs libgps API major version 11 (gpsd 3.22, Debian 12)"
#endif

/// errno is a macro over a thread-local; Swift cannot read it directly.
static inline int cgps_errno(void) { return errno; }

/// WATCH_ENABLE | WATCH_JSON as one value, so Swift needs no flag arithmetic across types.
static inline unsigned int cgps_watch_json(void) { return WATCH_ENABLE | WATCH_JSON; }

/// Names the calling thread (Linux keeps 15 bytes) so `top -H` and the tests can find gpsd's reader.
/// prctl is variadic and pthread_setname_np needs _GNU_SOURCE, so Swift can call neither directly; and
/// Foundation's Thread.name can race with the thread's start and name nothing.
static inline void cgps_name_this_thread(const char *name) { (void)prctl(PR_SET_NAME, name, 0, 0, 0); }

#endif
