import Testing

/// The suites that must not overlap when the tests run in parallel: `NetworkReturnTests` makes and removes veth
/// pairs, and every link or address change wakes each daemon on the machine (its netlink watch, by design:
/// the network's return is a reason to fetch), while `IdleWakeupsTests` counts every wakeup of an idle daemon.
/// Serialized here, each runs while the other does not.
@Suite(.serialized) enum NetworkQuietTests {}
