// Start-up: init attaches to the kernel and starts the stack before main runs.
// SPDX-License-Identifier: BSD-3-Clause

package netstack

import (
	"os"
	"syscall"

	"gmpos/kernel/netabi"
)

// running is the service init started, nil when not on gmpos (or when start-up failed).
// Written once by init, before main; read by Stats.
var running *service

func init() {
	var cb [netabi.ConfigSize]byte
	_, e := gmposNet(netabi.OpConfig, ptr(cb[:]), uintptr(len(cb)), 0, 0, 0)
	switch e {
	case syscall.ENOSYS:
		return // not on gmpos: leave the host's network alone
	case 0, syscall.ENODEV: // ENODEV: no NIC, loopback only; Config is still filled
	default:
		warn("gmpos_net config", e)
		return
	}
	cfg, ok := netabi.DecodeConfig(cb[:])
	if !ok {
		warn("gmpos_net config: bad record", syscall.EINVAL)
		return
	}
	r, e := gmposNet(netabi.OpAttach, 0, 0, 0, 0, 0)
	if e != 0 {
		warn("gmpos_net attach", e)
		return
	}
	k, err := newSysKernel(int(r))
	if err != nil {
		warn("service file: "+err.Error(), 0)
		return
	}
	var nic framePort
	if cfg.Flags&netabi.CfgNIC != 0 {
		r, e := gmposNet(netabi.OpOpenNIC, 0, 0, 0, 0, 0)
		if e != 0 {
			warn("gmpos_net open NIC", e) // carry on with loopback
			cfg.Flags &^= netabi.CfgNIC
		} else if p, err := newKernelPort(os.NewFile(r, "gmpos-nic0")); err != nil {
			warn("NIC file: "+err.Error(), 0)
			cfg.Flags &^= netabi.CfgNIC
		} else {
			nic = p
		}
	}
	s, err := start(k, cfg, nic)
	if err != nil {
		warn("netstack: "+err.Error(), 0)
		return
	}
	running = s
}

// warn reports a start-up failure on stderr without fmt (init is on the boot path of every
// network program; the program then runs without a network and its socket calls fail).
func warn(what string, e syscall.Errno) {
	msg := "gmpos netstack: " + what
	if e != 0 {
		msg += ": " + e.Error()
	}
	os.Stderr.WriteString(msg + "\n")
}

// Started reports whether init started the stack (false on a hosted Linux binary).
func Started() bool { return running != nil }
