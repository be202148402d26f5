// Package debfetch downloads one Debian package and unpacks it into a cache directory, without
// installing it and without root: the Raspberry Pi GPU firmware (Debian's raspi-firmware, in
// bookworm's non-free-firmware component) that `gmpos image -board rpi3|rpi4` copies onto an SD
// card image (package gmpos/qemu/sdimage). Fetch gets the package; RaspiFirmwareDir finds the
// firmware files in the unpacked tree.
//
// # Why apt, and why a private configuration
//
// apt-get already does everything hard about fetching a package: mirror selection, proxies from
// the host's apt.conf, and checking the archive's signature against debian-archive-keyring
// before any byte is trusted. So Fetch runs `apt-get update` and `apt-get download PKG`, then
// `dpkg-deb -x`, with a configuration of its own under the cache directory (aptConfig): its own
// sources.list (the one suite and component, signed-by the Debian keyring), its own lists,
// package cache and dpkg status file. apt takes no sources from /etc/apt and writes nothing
// outside the cache directory, so neither root nor a host that carries non-free-firmware in
// its sources is needed, and the host's package state is never touched. The host's apt.conf.d
// is still read (it may hold the proxy this machine needs), minus the hooks it runs after
// `apt-get update` and any APT::Default-Release (checked: a host's "trixie" there makes
// apt-get download fail against our bookworm-only sources).
//
// # Caching
//
// The unpacked tree is cacheDir/root-PKG. A stamp file, cacheDir/root-PKG.stamp, is written after
// the tree is complete and names the suite and component it came from; while it is there, Fetch
// answers from the cache without touching the network. An interrupted Fetch leaves no stamp, so
// the next one starts over. A lock file serializes Fetches that share a cache directory, from
// `apt-get update` to the stamp.
//
// The tools are Debian's own (apt-get, dpkg-deb, the debian-archive-keyring file): on a host
// without them Fetch says which are missing instead of guessing at another way to get the files.
package debfetch
