#if canImport(Glibc)
    import Glibc
#endif

/// Groups of the system by name, for the socket's and the status file's `output.socket_group`.
public enum SystemGroup {
    /// The id of the group named `name`, or nil when the system has none (or cannot say).
    ///
    /// `getgrnam_r`, not `getgrnam`: the answer lands in a buffer of the caller's, so the look-up may run on
    /// any thread. It blocks (NSS reads `/etc/group`, or asks sssd or LDAP over the network): the daemon runs
    /// it on its blocking thread.
    public static func id(named name: String) -> gid_t? {
        var entry = group()
        var found: UnsafeMutablePointer<group>?
        var size = max(sysconf(Int32(_SC_GETGR_R_SIZE_MAX)), 1024)
        while true {
            var buffer = [CChar](repeating: 0, count: size)
            let status = getgrnam_r(name, &entry, &buffer, size, &found)
            // A group with many members needs a larger buffer; 1 MiB is more than any real one.
            if status == ERANGE, size < 1 << 20 {
                size *= 2
                continue
            }
            return status == 0 && found != nil ? entry.gr_gid : nil
        }
    }
}
