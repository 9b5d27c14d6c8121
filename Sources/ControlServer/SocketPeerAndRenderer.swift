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
import Settings
import ServiceLifecycle
import Systemd

#if canImport(Glibc)
    import Glibc
#endif

/// Who is at the other end of a connection, from the kernel.
extension SocketService {
    struct Peer {
        var uid: uid_t?
        /// Settings may be changed by the daemon's own user and by root only; others may read.
        var mayChangeSettings: Bool { uid == getuid() || uid == 0 }
    }

    /// The user id at the other end of a new connection (SO_PEERCRED), nil when the kernel does not say.
    static func peerUID(of channel: any Channel) -> EventLoopFuture<uid_t?> {
        guard let provider = channel as? any SocketOptionProvider else { return channel.eventLoop.makeSucceededFuture(nil) }
        let future: EventLoopFuture<PeerCredentials> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
        return future.map { Optional($0.uid) }.recover { _ in nil }
    }

    /// The user at the other end of a Unix socket, from the kernel (SO_PEERCRED), not from anything
    /// the client says.
    static func peerUser(of channel: any Channel) async -> Peer {
        guard let provider = channel as? any SocketOptionProvider else { return Peer(uid: nil) }
        let future: EventLoopFuture<PeerCredentials> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
        guard let credentials = try? await future.get() else { return Peer(uid: nil) }
        return Peer(uid: credentials.uid)
    }

    /// Linux's `struct ucred` (glibc shows it only with _GNU_SOURCE, so Swift does not see it).
    struct PeerCredentials: Sendable {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }
}

/// Renders reports for one request's `format`, `icons` and `template`, in the `[display]` settings in force
/// when it renders (so a watcher's next line follows an edit of them).
struct ReportRenderer: Sendable {
    let format: OutputFormat
    let icons: IconSet?
    let template: Template?
    /// The settings in force, read as each line is rendered.
    let settings: Broadcast<Settings>
    /// Whether the line stays on show (a watcher's): it then says when the forecast was fetched, never how
    /// long ago, which would freeze until the next line.
    let lasting: Bool

    init(_ request: ReportOptions, settings: Broadcast<Settings>, lasting: Bool = false)
        throws(ControlRequestError)
    {
        var template: Template?
        if let text = request.template {
            do {
                template = try Template(text)
            } catch {
                throw ControlRequestError("bad template: \(error)")
            }
        }
        self.format = request.format ?? .json
        self.icons = request.icons
        self.template = template
        self.settings = settings
        self.lasting = lasting
    }

    /// One line: multi-line formats (i3blocks) send their first line, which is what a persistent
    /// i3blocks block reads per update.
    func render(_ report: Report) -> String {
        var options = settings.value.display.renderOptions(for: format)
        options.icons = icons ?? options.icons
        options.template = template
        options.lasting = lasting
        let text = Renderer.render(report, as: format, options: options)
        return format.lineCount > 1 ? String(text.prefix { $0 != "\n" }) : text
    }
}
