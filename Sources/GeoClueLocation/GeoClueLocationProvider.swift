import DBus
import ForecastModel
import Foundation
import GeoClue
import Location
import Logging
import Waiting

/// Positions from GeoClue 2, the desktop's location service, where the desktop runs its agent (GNOME, KDE): one fix
/// at a time (``GeoClueClient/locateOnce(accuracy:)``: `DesktopId` set, `Start`, the fix, `Stop`, so no location
/// icon stays lit), asked again after ``interval`` while the daemon still wants it. The daemon runs it only when
/// gpsd, Wi-Fi and the static file know nothing.
///
/// Where no agent is registered (a tiling window manager's session, as a rule) or GeoClue is not installed, it is
/// skipped quietly: one log line, an ``LocationEvent/unavailable(source:reason:)`` for `forecastctl locate`, and no
/// further question until ``interval`` has passed.
public struct GeoClueLocationProvider: LocationProvider {
    /// How long one question may wait for a fix (GeoClue may ask its sources, its agent the user).
    public static let fixDeadline: Duration = .seconds(60)
    /// How long after one question the next is asked, while the daemon runs this source.
    public static let interval: Duration = .seconds(3600)
    /// The `.desktop` name GeoClue's configuration and agents know forecastd by.
    public static let desktopID = "forecastd"

    let busAddress: String
    let logger: Logger
    let clock: @Sendable () -> Date

    public init(
        busAddress: String = DBusAddress.system(), logger: Logger, clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.busAddress = busAddress
        self.logger = logger
        self.clock = clock
    }

    public func run(_ deliver: @escaping @Sendable (LocationEvent) -> Void) async {
        var lastProblem: String?
        // One connection for as long as the source runs (idle, it costs nothing): closing it right after a question
        // could drop the `Stop` GeoClue's client was sent on the way out, which sd-bus writes a moment later.
        var bus: DBusConnection?
        while !Task.isCancelled {
            if bus?.isOpen != true { bus = try? await DBusConnection.connect(address: busAddress) }
            let outcome =
                if let bus { await ask(on: bus) } else {
                    GeoClueOutcome.failed("the system bus at \(busAddress) cannot be reached")
                }
            if Task.isCancelled { break }
            switch outcome {
            case .fix(let fix):
                lastProblem = nil
                logger.info(
                    "GeoClue gave a position.",
                    metadata: [
                        "location.accuracy_m": "\(Int(fix.accuracyMeters.rounded()))",
                        "geoclue.source": "\(fix.description ?? "unknown")",
                    ])
                deliver(
                    .fix(
                        LocationFix(
                            coordinate: Coordinate(latitude: fix.latitude, longitude: fix.longitude), source: .geoclue,
                            accuracyMeters: fix.accuracyMeters, fixTime: fix.timestamp, receivedAt: clock())))
            case .absent, .noAgent, .refused, .failed:
                let reason = outcome.description
                if reason != lastProblem {
                    // Said once: on a desktop without an agent this is the normal case, not a fault.
                    logger.info("GeoClue is skipped.", metadata: ["reason": "\(reason)"])
                    deliver(.unavailable(source: .geoclue, reason: reason))
                }
                lastProblem = reason
            }
            do {
                try await Alarm.sleep(for: Self.interval)
            } catch {
                break
            }
        }
        await bus?.close()
    }

    /// One question, bounded by ``fixDeadline``.
    private func ask(on bus: DBusConnection) async -> GeoClueOutcome {
        let client = GeoClueClient(bus: bus, desktopID: Self.desktopID)
        return await withTaskGroup(of: GeoClueOutcome?.self) { group in
            group.addTask { await client.locateOnce(accuracy: .exact) }
            group.addTask {
                try? await Alarm.sleep(for: Self.fixDeadline)
                return Task.isCancelled ? nil : .failed("no position within \(Self.fixDeadline.components.seconds) s")
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .failed("stopped waiting for a position")
        }
    }
}
