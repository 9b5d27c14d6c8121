// libgps, the gpsd client library, seen from Swift. (CGPSVersion only reads its version, for --version.)
//
// Swift never reads a field of gps_data_t: everything it needs goes through the accessors below, which
// are compiled (static inline, into the Swift module that imports this one) against whatever gps.h the
// build machine has. gps_data_t changes shape between libgps API majors (libgps(3), and the history at
// the top of gps.h); an accessor that names a field that moved stops the build at that accessor instead
// of reading the wrong bytes.
#ifndef FORECASTD_CGPS_SHIM_H
#define FORECASTD_CGPS_SHIM_H

#include <errno.h>
#include <gps.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

// API 11 is gpsd 3.22 (Debian 12), 12 is 3.23, 13 is 3.24, 14 is 3.25 (Debian 13, Ubuntu 24.04). Everything
// read below has kept its name and meaning from 11 to 14: time became a timespec and altMSL appeared in 9,
// status moved into gps_fix_t in 10. Later majors are accepted: they compile against their own gps.h, so a
// field that moves again stops the build here rather than being misread.
#if !defined(GPSD_API_MAJOR_VERSION) || GPSD_API_MAJOR_VERSION < 11
#error "forecastd needs libgps API major version 11 or later: gpsd 3.22 or later (Debian 12 has 3.22 = API 11, Debian 13 and Ubuntu 24.04 have 3.25 = API 14). The installed gps.h is older; install a newer libgps-dev."
#endif

// MARK: The build

/// The libgps API major version this binary was compiled against (GPSD_API_MAJOR_VERSION).
static inline int cgps_api_major(void) { return GPSD_API_MAJOR_VERSION; }

/// The libgps API minor version this binary was compiled against (GPSD_API_MINOR_VERSION).
static inline int cgps_api_minor(void) { return GPSD_API_MINOR_VERSION; }

// MARK: Lifetime and I/O

/// A zeroed gps_data_t on the heap (about 24 kB in API 11, more in 14), or NULL when memory is short.
static inline struct gps_data_t *cgps_new(void) { return (struct gps_data_t *)calloc(1, sizeof(struct gps_data_t)); }

/// Frees what cgps_new returned. The connection, if any, must be closed first.
static inline void cgps_free(struct gps_data_t *data) { free(data); }

/// Connects to gpsd at host:port. Returns 0, or the error: negative values are libgps's own codes
/// (gps_errstr names them), positive ones errno values.
///
/// After a failure the struct holds no connection (gps_fd is a negative placeholder, -6 or -2 depending on
/// the version): touch nothing but a fresh cgps_open.
static inline int cgps_open(const char *host, const char *port, struct gps_data_t *data) {
    errno = 0;
    if (gps_open(host, port, data) == 0) return 0;
    return errno != 0 ? errno : EIO;
}

/// Asks gpsd to stream JSON reports (?WATCH={"enable":true,"json":true}). Returns 0 on success.
/// (The third parameter is `void *` in API 11 and `const char *` in 14: NULL suits both.)
static inline int cgps_stream_json(struct gps_data_t *data) { return gps_stream(data, WATCH_ENABLE | WATCH_JSON, NULL); }

/// Reads at most one report into the struct, without blocking when the socket is non-blocking.
///
/// Returns the length of the line read (> 0); 0 when no complete line is available yet (libgps keeps a
/// partial line for the next call); -1 when the connection ended, with *error set to 0 when gpsd closed it
/// (or sent a line longer than libgps's buffer) and to the errno value otherwise. API 14 already answers
/// 0 for EAGAIN; older libgps may report it as -1, which means the same thing here.
static inline int cgps_read(struct gps_data_t *data, int *error) {
    errno = 0;
    int count = gps_read(data, NULL, 0);
    int code = errno;
    *error = 0;
    if (count >= 0) return count;
    if (code == EAGAIN || code == EWOULDBLOCK || code == EINTR) return 0;
    *error = code;
    return -1;
}

/// Closes the connection cgps_open made.
static inline int cgps_close(struct gps_data_t *data) { return gps_close(data); }

/// The socket gpsd talks on, to wait on with poll(2). Valid only between a successful cgps_open and cgps_close.
static inline int cgps_fd(const struct gps_data_t *data) { return (int)data->gps_fd; }

/// Parses one line of gpsd's JSON into the struct, as cgps_read does with what it receives.
/// Takes `char *` in API 11 and may write into it, so it gets a copy. Returns 0 on success.
static inline int cgps_unpack(const char *json, struct gps_data_t *data) {
#if GPSD_API_MAJOR_VERSION >= 14
    return gps_unpack(json, data);
#else
    char *copy = strdup(json);
    if (copy == NULL) return -1;
    int status = gps_unpack(copy, data);
    free(copy);
    return status;
#endif
}

// MARK: What one report said

/// Whether the last report set the fix mode (a TPV report). libgps never clears this: see cgps_clear_set.
static inline bool cgps_mode_set(const struct gps_data_t *data) { return (data->set & MODE_SET) != 0; }

/// Forgets which fields the reports so far have set, so the next report's mask is its own.
static inline void cgps_clear_set(struct gps_data_t *data) { data->set = 0; }

/// The fix mode: 0 not seen, 1 no fix, 2 2D, 3 3D. Whatever gpsd sent, unchecked.
static inline int cgps_mode(const struct gps_data_t *data) { return data->fix.mode; }

/// The fix's time, whole seconds since the epoch (0: the report carried no time).
static inline int64_t cgps_fix_seconds(const struct gps_data_t *data) { return (int64_t)data->fix.time.tv_sec; }

/// The fix's time, nanoseconds past the whole second.
static inline long cgps_fix_nanoseconds(const struct gps_data_t *data) { return data->fix.time.tv_nsec; }

/// Latitude in degrees; NaN when unknown.
static inline double cgps_latitude(const struct gps_data_t *data) { return data->fix.latitude; }

/// Longitude in degrees; NaN when unknown.
static inline double cgps_longitude(const struct gps_data_t *data) { return data->fix.longitude; }

/// Altitude above mean sea level in metres; NaN when unknown. (Every supported API has altMSL; the old
/// `altitude` field is deprecated and undefined since API 9.)
static inline double cgps_altitude_msl(const struct gps_data_t *data) { return data->fix.altMSL; }

/// Estimated horizontal position error in metres; NaN when unknown.
static inline double cgps_eph(const struct gps_data_t *data) { return data->fix.eph; }

/// Longitude (east-west) error estimate in metres; NaN when unknown.
static inline double cgps_epx(const struct gps_data_t *data) { return data->fix.epx; }

/// Latitude (north-south) error estimate in metres; NaN when unknown.
static inline double cgps_epy(const struct gps_data_t *data) { return data->fix.epy; }

/// Vertical error estimate in metres; NaN when unknown.
static inline double cgps_epv(const struct gps_data_t *data) { return data->fix.epv; }

/// The kind of fix (plain GPS, DGPS, RTK, dead reckoning, …), a modifier of the mode. The numbers are the
/// same in every supported API, although the constants were renamed after 3.22 (STATUS_FIX is STATUS_GPS in
/// 3.25, STATUS_NO_FIX is STATUS_UNK). gpsd 3.22 leaves it 0 on an ordinary good fix: never decide on it.
static inline int cgps_status(const struct gps_data_t *data) { return data->fix.status; }

/// Satellites used in the solution, as of the last SKY report (0 when unknown). libgps 3.25 takes it from the
/// report's uSat, which gpsd 3.25 sends; 3.22 counts the satellites marked used.
static inline int cgps_satellites_used(const struct gps_data_t *data) { return data->satellites_used; }

/// The receiver that sent the last report (its device path, e.g. /dev/ttyACM0); empty when not said.
static inline const char *cgps_device(const struct gps_data_t *data) { return data->dev.path; }

// MARK: The reader

/// errno is a macro over a thread-local; Swift cannot read it directly.
static inline int cgps_errno(void) { return errno; }

/// Names the calling thread (Linux keeps 15 bytes) so `top -H` and the tests can find gpsd's reader.
/// prctl is variadic and pthread_setname_np needs _GNU_SOURCE, so Swift can call neither directly; and
/// Foundation's Thread.name can race with the thread's start and name nothing.
static inline void cgps_name_this_thread(const char *name) { (void)prctl(PR_SET_NAME, name, 0, 0, 0); }

#endif
