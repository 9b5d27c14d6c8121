import Control
import DaemonState
import FileStore
import ForecastModel
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Rendering
import ServiceLifecycle
import Systemd
import Waiting

#if canImport(Glibc)
    import Glibc
#endif

/// The socket's file: put in place with its mode and group, checked when systemd passed it, and
/// never taken from another running daemon.
extension SocketService {

    /// Sets the mode (and group) of the freshly bound socket and renames it to its real path.
    func placeSocket(_ temporaryPath: String, server: any Channel) async throws {
        var mode: mode_t = 0o600
        if let group = options.group, !group.isEmpty {
            guard let id = await Blocking.run({ SystemGroup.id(named: group) }) else {
                unlink(temporaryPath)
                server.close(promise: nil)
                throw StartError(description: "output.socket_group: no group named \"\(group)\" on this system")
            }
            chown(temporaryPath, getuid(), id)
            mode = 0o660
        }
        guard chmod(temporaryPath, mode) == 0, rename(temporaryPath, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            server.close(promise: nil)
            throw StartError(description: "\(path): cannot put the socket in place: \(reason)")
        }
    }

    /// Gives the socket systemd passed the mode and group a socket of the daemon's own gets
    /// (0600, or 0660 and `output.socket_group`), when its file differs and the daemon may change it.
    /// A difference it cannot change is logged with the socket unit's settings that fix it.
    func checkPassedSocketAccess(_ socketPath: String) async throws {
        var group: gid_t?
        if let name = options.group, !name.isEmpty {
            guard let id = await Blocking.run({ SystemGroup.id(named: name) }) else {
                throw StartError(description: "output.socket_group: no group named \"\(name)\" on this system")
            }
            group = id
        }
        let mode: mode_t = group == nil ? 0o600 : 0o660
        var info = stat()
        guard stat(socketPath, &info) == 0 else { return }
        if info.st_mode & 0o777 != mode { chmod(socketPath, mode) }
        if let group, info.st_gid != group { chown(socketPath, uid_t.max, group) }
        guard stat(socketPath, &info) == 0 else { return }
        let wrongGroup = group.map { info.st_gid != $0 } ?? false
        if info.st_mode & 0o777 != mode || wrongGroup {
            logger.warning(
                "The socket systemd passed does not have the access output.socket_group asks for, and forecastd cannot change it; set SocketMode= and SocketGroup= in forecastd.socket (systemctl edit forecastd.socket).",
                metadata: [
                    "path": "\(socketPath)", "mode": "\(String(info.st_mode & 0o777, radix: 8))",
                    "wanted_mode": "\(String(mode, radix: 8))", "group": "\(options.group ?? "")",
                ])
        }
    }

    /// A second daemon must not steal the socket of a running one, and a file that is not a socket
    /// is not ours to replace; a stale socket file from a crash is fine to replace.
    func refuseIfAnotherDaemonListens() async throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw StartError(description: "\(path): exists and is not a socket; refusing to replace it")
        }
        // A blocking connect and greeting read (up to 1 s): on the blocking thread.
        let path = self.path
        if await Blocking.run({ (try? ControlClient(socketPath: path, timeout: .seconds(1))) != nil }) {
            throw StartError(description: "\(path): another forecastd is already running and listening there")
        }
    }
}
