// libmosquitto, the Eclipse Mosquitto project's MQTT client library, seen from Swift. Only the `MQTT` module
// imports this.
//
// Every call `MQTT` makes is in libmosquitto 2.0.11 (Debian 12) and unchanged in 2.0.21 (Debian 13): the client
// (mosquitto_new, _destroy, _connect_bind_v5, _reconnect, _disconnect), the external loop (mosquitto_socket,
// _want_write, mosquitto_loop with a zero timeout on readiness, _loop_misc), TLS (mosquitto_tls_set, MOSQ_OPT_TLS_USE_OS_CERTS, which
// 2.0 added), the MQTT 5 properties (the maximum packet size the client accepts), the will, publish, subscribe
// and the connect, disconnect and message callbacks. Nothing of mosquitto_loop_start's thread is used.
#ifndef FORECASTD_CMOSQUITTO_SHIM_H
#define FORECASTD_CMOSQUITTO_SHIM_H

#include <errno.h>
#include <sys/prctl.h>
#include <mosquitto.h>
#include <mqtt_protocol.h>

/// The version of the header this was compiled against (2000011 for 2.0.11): the macro is an expression, which
/// Swift does not import.
static inline int cmosquitto_header_version(void) { return LIBMOSQUITTO_VERSION_NUMBER; }

/// errno is a macro over a thread-local; Swift cannot read it directly. libmosquitto returns MOSQ_ERR_ERRNO
/// and leaves the reason in errno.
static inline int cmosquitto_errno(void) { return errno; }

/// Names the calling thread for the kernel (top -H, /proc): `mqtt-connect`, the short thread of one connect.
static inline void cmosquitto_name_this_thread(const char *name) { (void)prctl(PR_SET_NAME, name, 0, 0, 0); }

#endif
