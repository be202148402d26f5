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
// ifconfig does (netdevice(7)); struct ifreq is the 16-byte name, then a 24-byte union.
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
	ioctl := func(req uintptr, ifr *[40]byte) error {
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), req, uintptr(unsafe.Pointer(ifr))); e != 0 {
			return e
		}
		return nil
	}
	up := func(name string) error { // ifr_flags |= IFF_UP
		var ifr [40]byte
		copy(ifr[:16], name)
		if err := ioctl(syscall.SIOCGIFFLAGS, &ifr); err != nil {
			return fmt.Errorf("%s: SIOCGIFFLAGS: %v", name, err)
		}
		binary.NativeEndian.PutUint16(ifr[16:], binary.NativeEndian.Uint16(ifr[16:])|syscall.IFF_UP)
		if err := ioctl(syscall.SIOCSIFFLAGS, &ifr); err != nil {
			return fmt.Errorf("%s: SIOCSIFFLAGS: %v", name, err)
		}
		return nil
	}
	set := func(name string, req uintptr, a net.IP) error { // a struct sockaddr_in in the union
		var ifr [40]byte
		copy(ifr[:16], name)
		binary.NativeEndian.PutUint16(ifr[16:], syscall.AF_INET)
		copy(ifr[20:24], a.To4())
		return ioctl(req, &ifr)
	}
	// The NIC appears when virtio_net has probed the device, normally before init_module
	// returns; wait a little in case the probe is deferred.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		ifs, err := net.Interfaces()
		if err != nil {
			return err
		}
		var nic string
		for _, i := range ifs {
			if i.Flags&net.FlagLoopback != 0 {
				if err := up(i.Name); err != nil {
					return err
				}
			} else if nic == "" {
				nic = i.Name
			}
		}
		if nic == "" {
			if time.Now().After(deadline) {
				return fmt.Errorf("no network interface after loading the modules")
			}
			continue
		}
		if err := set(nic, syscall.SIOCSIFADDR, ip); err != nil {
			return fmt.Errorf("%s: SIOCSIFADDR: %v", nic, err)
		}
		if err := set(nic, syscall.SIOCSIFNETMASK, net.IP(ipnet.Mask)); err != nil {
			return fmt.Errorf("%s: SIOCSIFNETMASK: %v", nic, err)
		}
		fmt.Printf("INFO net %s %s\n", nic, cidr)
		return up(nic)
	}
}

// powerOff waits until the console has sent everything, then powers the machine off (QEMU
// exits). PID 1 must never exit: the kernel would panic.
func powerOff() {
	syscall.Syscall(syscall.SYS_IOCTL, 1, 0x5409 /* TCSBRK */, 1) // tcdrain(1): the UART has sent everything
	syscall.Sync()
	syscall.Reboot(syscall.LINUX_REBOOT_CMD_POWER_OFF)
	select {} // not reached
}
