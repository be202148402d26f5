// Package linuxpeer builds the Linux guest that `make bench` compares gmpos with: the same
// static Go program as /init of Debian's stock cloud kernel, in the same QEMU machine.
//
// The pieces, each usable on its own:
//
//   - Fetch: the newest linux-image-*-cloud-amd64 package apt offers, downloaded with
//     `apt-get download` and unpacked with `dpkg-deb -x` into a cache directory (nothing is
//     installed; it may run `apt-get update` first, as root or with passwordless sudo).
//   - Kernel.Modules and LoadOrder: Debian builds virtio-pci and virtio-net as modules, so
//     the initramfs carries them and their dependencies, found in each module's .modinfo
//     ("depends="), since the package has no modules.dep.
//   - CpioWriter and WriteInitramfs: the initramfs as a newc cpio written in Go — /dev/console
//     is a header, not a mknod, so no root is needed.
//   - KernelCmdline and QEMUArgs: the kernel command line (the program's arguments follow
//     "--") and a QEMU command line that matches the runner's for gmpos: q35, the same CPU
//     model, memory, vCPUs and virtio-net NIC.
//
// The program itself must do what an init system would: load the modules (the peer's
// /init does it with init_module(2), in the order of their file names), configure the NIC
// (QEMU's user network always gives 10.0.2.15/24), and power the machine off at the end;
// tests/bench does, when given -linux-init.
package linuxpeer
