// The network check: whether the program runs beside an open NIC.
// SPDX-License-Identifier: BSD-3-Clause

package racecheck

import (
	"fmt"
	"net"
)

// CheckNetworkUp prints the check line of NetworkUp: a race program's first, so that its races
// run beside an open NIC.
func CheckNetworkUp() {
	up, ifc := NetworkUp()
	Check("the network is up", up, ifc)
}

// NetworkUp reports whether an interface other than loopback has an address, and which. Under
// gmpos that means the program's network stack opened the NIC at start-up (the runner gives a
// program that imports net a NIC), and its receiving goroutine has waited on the NIC file ever
// since: a thread blocked in the kernel for as long as the program runs, beside an open NIC —
// the case in which the kernel's paths without the big kernel lock all gave way to it until
// 27 Nov 2026. A race program that checks this runs its races in that case.
func NetworkUp() (bool, string) {
	ifs, err := net.Interfaces()
	if err != nil {
		return false, err.Error()
	}
	for _, ifc := range ifs {
		if ifc.Flags&net.FlagLoopback != 0 || ifc.Flags&net.FlagUp == 0 {
			continue
		}
		addrs, err := ifc.Addrs()
		if err == nil && len(addrs) > 0 {
			return true, fmt.Sprintf("%s %v", ifc.Name, addrs[0])
		}
	}
	return false, fmt.Sprintf("no interface but loopback has an address: %d interfaces", len(ifs))
}
