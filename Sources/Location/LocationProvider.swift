import ForecastModel

/// A source of positions: gpsd, the pin, and whatever comes later.
///
/// This is the I/O seam of the Location module. The daemon's state owner runs each provider in a child task
/// and turns the events into its state; tests run the real providers against real peers.
public protocol LocationProvider: Sendable {
    /// Delivers events until the calling task is cancelled, then returns.
    ///
    /// `deliver` may be called from any thread (gpsd's comes from a dedicated reader thread), never concurrently
    /// for one call of `run`, and never after `run` has returned.
    func run(_ deliver: @escaping @Sendable (LocationEvent) -> Void) async
}

/// What a provider has to say.
public enum LocationEvent: Sendable, Hashable {
    /// A usable position: plausible coordinates, already checked by the provider.
    case fix(LocationFix)
    /// The source works but does not know the position (gpsd reports no fix). Sent on change only.
    case noFix(source: LocationSource)
    /// The source is reachable again (gpsd accepted the connection).
    case connected(source: LocationSource)
    /// The source cannot be used; `reason` is one sentence for people. Sent once per outage.
    case unavailable(source: LocationSource, reason: String)

    /// The source the event is about.
    public var source: LocationSource {
        switch self {
        case .fix(let fix): fix.source
        case .noFix(let source), .connected(let source), .unavailable(let source, _): source
        }
    }
}
