// The libgps API forecastd is built against, for `--version`, without linking libgps: forecastctl prints
// it too and has no other use for the library. (CGPS, which links libgps, refuses APIs older than 11.)
#ifndef FORECASTD_CGPSVERSION_LIBGPS_API_H
#define FORECASTD_CGPSVERSION_LIBGPS_API_H

#include <gps.h>

/// GPSD_API_MAJOR_VERSION of the gps.h this binary was compiled against (11 for gpsd 3.22, 14 for 3.25).
static inline int forecastd_libgps_api_major(void) { return GPSD_API_MAJOR_VERSION; }

/// GPSD_API_MINOR_VERSION of the same gps.h.
static inline int forecastd_libgps_api_minor(void) { return GPSD_API_MINOR_VERSION; }

#endif
