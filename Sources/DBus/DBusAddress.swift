import Foundation

/// Where a bus is: a D-Bus address such as `unix:path=/run/user/1000/bus`.
public enum DBusAddress {
    /// The session bus's address, found as D-Bus clients find it: `DBUS_SESSION_BUS_ADDRESS`, else the socket
    /// `$XDG_RUNTIME_DIR/bus` that systemd's user manager (and dbus-user-session) provide.
    ///
    /// Resolved here rather than by `sd_bus_open_user` so that "there is no session bus" is one clear error with
    /// the reason, the same on every libsystemd version. A system service has neither: it gets
    /// ``DBusError/noSessionBus(reason:)``.
    public static func session(environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(DBusError) -> String
    {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty {
            return address
        }
        guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else {
            throw .noSessionBus(reason: "DBUS_SESSION_BUS_ADDRESS and XDG_RUNTIME_DIR are both unset")
        }
        let socket = URL(fileURLWithPath: runtime).appendingPathComponent("bus").path
        guard isSocket(socket) else {
            throw .noSessionBus(reason: "DBUS_SESSION_BUS_ADDRESS is unset and there is no bus socket at \(socket)")
        }
        return "unix:path=" + escape(socket)
    }

    /// The system bus's socket where D-Bus puts it (the specification's default, `/var/run/dbus/system_bus_socket`,
    /// is a link to it on every distribution forecastd supports).
    public static let defaultSystemBus = "unix:path=/run/dbus/system_bus_socket"

    /// The system bus's address, found as D-Bus clients find it: `DBUS_SYSTEM_BUS_ADDRESS` (which tests set to a bus
    /// of their own), else ``defaultSystemBus``. No error here: a machine without a system bus fails the connection
    /// with ``DBusError/connectionFailed(address:reason:)``, which names the address tried.
    public static func system(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let address = environment["DBUS_SYSTEM_BUS_ADDRESS"], !address.isEmpty {
            return address
        }
        return defaultSystemBus
    }

    /// Escapes a value for a D-Bus address: bytes outside `[-0-9A-Za-z_/.\*]` become `%XX`.
    public static func escape(_ value: String) -> String {
        var escaped = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "/"),
                UInt8(ascii: "."), UInt8(ascii: "\\"), UInt8(ascii: "*"):
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                escaped += "%" + String(byte, radix: 16, uppercase: false).leftPadded(to: 2)
            }
        }
        return escaped
    }

    private static func isSocket(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return info.st_mode & S_IFMT == S_IFSOCK
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
