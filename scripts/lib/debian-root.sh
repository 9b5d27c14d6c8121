# Debian roots made with debootstrap, for checks that must run on another Debian release
# (gpsd 3.25 on trixie; installing the .deb into clean bookworm and trixie systems).
#
# Source this file from a bash script:
#   . "$(dirname "$0")/lib/debian-root.sh"
#   root=$(debian_root_pristine trixie)        # a minbase root, made once, never changed afterwards
#   debian_root_copy "$root" "$work/trixie"    # a private copy to install into
#   debian_root_run "$work/trixie" apt-get install -y gpsd
#
# Everything lives in the clone's own folder (.build-roots/, ignored by git): nothing is cached
# outside it. The roots need root privileges (debootstrap, chroot, mounts).

DEBIAN_ROOT_MIRROR=${DEBIAN_ROOT_MIRROR:-http://deb.debian.org/debian}
DEBIAN_ROOT_CACHE=${DEBIAN_ROOT_CACHE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.build-roots}

# Prints the path of a pristine minbase root of SUITE (bookworm, trixie), making it on first use.
# The root is complete only once the marker file exists, so an interrupted debootstrap is redone.
debian_root_pristine() {
    local suite=$1
    local root="$DEBIAN_ROOT_CACHE/$suite-minbase"
    if [[ ! -e "$root/.forecastd-root-complete" ]]; then
        command -v debootstrap >/dev/null || {
            echo "debian-root: debootstrap is missing (apt-get install debootstrap)" >&2
            return 1
        }
        rm -rf "$root"
        mkdir -p "$DEBIAN_ROOT_CACHE"
        echo "debian-root: making a minbase $suite root in $root (about 30 s)" >&2
        debootstrap --variant=minbase "$suite" "$root" "$DEBIAN_ROOT_MIRROR" >"$DEBIAN_ROOT_CACHE/$suite-debootstrap.log" 2>&1 || {
            echo "debian-root: debootstrap $suite failed; see $DEBIAN_ROOT_CACHE/$suite-debootstrap.log" >&2
            return 1
        }
        # Packages come from the same mirror the host reaches; no recommends, as a server install would.
        printf 'deb %s %s main\n' "$DEBIAN_ROOT_MIRROR" "$suite" >"$root/etc/apt/sources.list"
        printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' >"$root/etc/apt/apt.conf.d/90forecastd"
        touch "$root/.forecastd-root-complete"
    fi
    printf '%s\n' "$root"
}

# Copies a root (hard links would share inodes with the pristine root, so this is a real copy).
debian_root_copy() {
    local from=$1 to=$2
    rm -rf "$to"
    mkdir -p "$(dirname "$to")"
    cp -a "$from" "$to"
}

# Runs a command inside ROOT with /proc, /sys, /dev and /dev/pts mounted and the host's
# resolv.conf, in a mount namespace of its own: every mount vanishes when the command ends, even
# if it is killed. Extra bind mounts come from DEBIAN_ROOT_BINDS="HOSTPATH[:ROOTPATH] ...", read-only,
# and DEBIAN_ROOT_RW_BINDS, read-write.
debian_root_run() {
    local root=$1
    shift
    local binds=${DEBIAN_ROOT_BINDS:-} rw_binds=${DEBIAN_ROOT_RW_BINDS:-}
    unshare --mount --propagation private -- bash -euc '
        root=$1; binds=$2; rw_binds=$3; shift 3
        mount -t proc proc "$root/proc"
        mount --rbind /sys "$root/sys"
        mount --rbind /dev "$root/dev"
        cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
        for bind in $binds; do
            host=${bind%%:*}; inside=${bind#*:}
            [[ "$bind" == *:* ]] || inside=$host
            mkdir -p "$root$inside"
            mount --bind "$host" "$root$inside"
            mount -o remount,bind,ro "$root$inside"
        done
        for bind in $rw_binds; do
            host=${bind%%:*}; inside=${bind#*:}
            [[ "$bind" == *:* ]] || inside=$host
            mkdir -p "$root$inside"
            mount --bind "$host" "$root$inside"
        done
        exec chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
            LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
    ' debian-root "$root" "$binds" "$rw_binds" "$@"
}

# The libraries the Swift toolchain (/opt/swift) loads, and what it compiles and links with, per suite.
debian_root_toolchain_packages() {
    case $1 in
        bookworm) echo "libcurl4 libxml2 libedit2 libncurses6 libpython3.11 libc6-dev libstdc++-12-dev binutils pkg-config git ca-certificates" ;;
        trixie) echo "libcurl4t64 libxml2 libedit2 libncurses6 libpython3.13 libc6-dev libstdc++-14-dev binutils pkg-config git ca-certificates" ;;
        *) echo "debian-root: no toolchain package list for suite '$1' (known: bookworm, trixie)" >&2; return 1 ;;
    esac
}

# Prints the path of a root of SUITE in which /opt/swift runs (bind-mounted by debian_root_run_swift),
# plus the EXTRA packages given, made on first use from the pristine root and kept in .build-roots/.
# The extra packages are part of the cache key, so different callers get different roots.
debian_root_toolchain() {
    local suite=$1
    shift
    local extra="$*"
    local key
    key=$(printf '%s' "$extra" | md5sum | cut -c1-8)
    local root="$DEBIAN_ROOT_CACHE/$suite-toolchain-$key"
    if [[ ! -e "$root/.forecastd-toolchain-complete" ]]; then
        local pristine packages
        pristine=$(debian_root_pristine "$suite") || return 1
        packages=$(debian_root_toolchain_packages "$suite") || return 1
        debian_root_copy "$pristine" "$root"
        echo "debian-root: installing the toolchain's libraries and: ${extra:-nothing else} into $root" >&2
        debian_root_run "$root" bash -c "apt-get update -qq && apt-get install -y -qq $packages $extra" \
            >"$DEBIAN_ROOT_CACHE/$suite-toolchain-$key.log" 2>&1 || {
            echo "debian-root: apt-get install failed in $root; see $DEBIAN_ROOT_CACHE/$suite-toolchain-$key.log" >&2
            return 1
        }
        touch "$root/.forecastd-toolchain-complete"
    fi
    printf '%s\n' "$root"
}

# Runs a command in a toolchain root with the Swift toolchain and the Swift package mirror visible at the
# paths they have on this machine, and git told (as on the host) to read github.com from the mirror.
# DEBIAN_ROOT_SOURCE=HOSTDIR, when set, is bind-mounted read-write at /src (the build writes its .build there).
debian_root_run_swift() {
    local root=$1
    shift
    printf '[url "/opt/swift-packages/"]\n\tinsteadOf = https://github.com/\n' >"$root/etc/gitconfig"
    DEBIAN_ROOT_BINDS="/opt/swift ${SWIFT_PACKAGE_MIRROR:-/opt/swift-packages}:/opt/swift-packages" \
        DEBIAN_ROOT_RW_BINDS="${DEBIAN_ROOT_SOURCE:+$DEBIAN_ROOT_SOURCE:/src}" \
        debian_root_run "$root" env PATH=/opt/swift/usr/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
}
