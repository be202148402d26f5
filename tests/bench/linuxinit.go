// What the program does as /init of the Linux peer: what an init system would do for it.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"
	"unsafe"
)

// setupLinux mounts /proc and /sys (for INFO), loads the NIC's modules and configures the NIC.
func setupLinux(cidr string) error {
	syscall.Mount("proc", "/proc", "proc", 0, "") // errors only cost INFO fields
	syscall.Mount("sysfs", "/sys", "sysfs", 0, "")
	// tests/linuxpeer ships the modules as /modules/NN-name.ko, NN in load order (each after the
	// modules it depends on). init_module(2) takes the file's bytes, signature included.
	mods, _ := filepath.Glob("/modules/*.ko")
	sort.Strings(mods)
	for _, m := range mods {
		b, err := os.ReadFile(m)
		if err != nil {
			return err
		}
		params := []byte{0}
		_, _, e := syscall.Syscall(syscall.SYS_INIT_MODULE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)),
			uintptr(unsafe.Pointer(&params[0])))
		if e != 0 && e != syscall.EEXIST {
			return fmt.Errorf("init_module %s: %v", m, e)
		}
	}
	return netUp(cidr)
}

// netUp brings up lo and the first other interface, the NIC, with the address cidr. No DHCP:
// QEMU's user network always gives its guest 10.0.2.15/24, and the host reaches the guest from
// 10.0.2.2, inside that subnet, so no route is needed either. Plain ioctls on a socket, as
// ifconfig does (netdevice(7)).
func netUp(cidr string) error {
	ip, ipnet, err := net.ParseCIDR(cidr)
	if err != nil {
		return err
	}
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	// The NIC appears when virtio_net has probed the device, normally before init_module
	// returns; wait a little in case the probe is deferred.
	var lo, nic string
	for deadline := time.Now().Add(5 * time.Second); nic == ""; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			return fmt.Errorf("no network interface after loading the modules")
		}
		ifs, err := net.Interfaces()
		if err != nil {
			return err
		}
		for _, i := range ifs {
			switch {
			case i.Flags&net.FlagLoopback != 0:
				lo = i.Name
			case nic == "":
				nic = i.Name
			}
		}
	}
	steps := []struct {
		what string
		req  uintptr
		ifr  *ifreq
	}{
		{"address", syscall.SIOCSIFADDR, newIfreq(nic).inet(ip)},
		{"netmask", syscall.SIOCSIFNETMASK, newIfreq(nic).inet(net.IP(ipnet.Mask))},
	}
	for _, st := range steps {
		if err := st.ifr.ioctl(fd, st.req); err != nil {
			return fmt.Errorf("%s: setting the %s: %v", nic, st.what, err)
		}
	}
	for _, name := range []string{lo, nic} {
		if name == "" {
			continue
		}
		r := newIfreq(name)
		if err := r.ioctl(fd, syscall.SIOCGIFFLAGS); err != nil {
			return fmt.Errorf("%s: reading the flags: %v", name, err)
		}
		r.setFlags(r.flags() | syscall.IFF_UP)
		if err := r.ioctl(fd, syscall.SIOCSIFFLAGS); err != nil {
			return fmt.Errorf("%s: bringing it up: %v", name, err)
		}
	}
	fmt.Printf("INFO net %s %s\n", nic, cidr)
	return nil
}

// ifreq is struct ifreq of netdevice(7): the interface's name in 16 bytes, then a 24-byte
// union — here either ifr_addr, a struct sockaddr_in, or ifr_flags, a short.
type ifreq [40]byte

func newIfreq(name string) *ifreq {
	var r ifreq
	copy(r[:15], name) // IFNAMSIZ 16, NUL-terminated
	return &r
}

// inet stores an IPv4 address as ifr_addr: sin_family, sin_port (0), sin_addr.
func (r *ifreq) inet(ip net.IP) *ifreq {
	binary.NativeEndian.PutUint16(r[16:18], syscall.AF_INET)
	copy(r[20:24], ip.To4())
	return r
}

func (r *ifreq) flags() uint16     { return binary.NativeEndian.Uint16(r[16:18]) }
func (r *ifreq) setFlags(f uint16) { binary.NativeEndian.PutUint16(r[16:18], f) }

func (r *ifreq) ioctl(fd int, req uintptr) error {
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), req, uintptr(unsafe.Pointer(r))); e != 0 {
		return e
	}
	return nil
}

// powerOff waits until the console has sent everything, then powers the machine off (QEMU
// exits). PID 1 must never exit: the kernel would panic.
func powerOff() {
	syscall.Syscall(syscall.SYS_IOCTL, 1, 0x5409 /* TCSBRK */, 1) // tcdrain(1): the UART has sent everything
	syscall.Sync()
	syscall.Reboot(syscall.LINUX_REBOOT_CMD_POWER_OFF)
	select {} // not reached
}
