// Package racecheck holds what the race programs (testdata/futexrace, sleeprace, faultrace)
// share: their "check NAME: true" lines, the check that they run beside an open NIC
// (NetworkUp), and the exit race, which starts children that exit while their threads do what
// the program races, so that exit_group must end threads in every state the kernel's paths
// without the big kernel lock can leave them in. Like the programs, it runs under gmpos and
// natively alike.
package racecheck

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Check prints "check NAME: true" if ok holds, else "check NAME: false" with the details.
func Check(name string, ok bool, detail ...any) {
	if !ok {
		fmt.Printf("check %s: false %v\n", name, detail)
		return
	}
	fmt.Printf("check %s: true\n", name)
}

// Child reports whether this process is a child the exit race started, and its number.
func Child() (n int, ok bool) {
	if len(os.Args) < 3 || os.Args[1] != "exitchild" {
		return 0, false
	}
	n, _ = strconv.Atoi(os.Args[2])
	return n, true
}

// ExitRace starts children, one at a time — the program itself, for which Child reports true —
// and checks that each ends, with status 0, within 30 s. verify, if not nil, is asked about each
// child's standard output and the pid its start returned.
func ExitRace(children int, verify func(pid int, stdout string) error) {
	exe, err := os.Executable()
	if err != nil {
		Check("os.Executable", false, err)
		return
	}
	ended := 0
	for i := 0; i < children; i++ {
		cmd := exec.Command(exe, "exitchild", fmt.Sprint(i))
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, os.Stderr
		if err := cmd.Start(); err != nil {
			Check("exit race: start", false, err)
			return
		}
		res := make(chan error, 1)
		go func() { res <- cmd.Wait() }()
		select {
		case err := <-res:
			switch {
			case err != nil:
				fmt.Println("exit race: child:", err)
			case verify != nil:
				if err := verify(cmd.Process.Pid, out.String()); err != nil {
					fmt.Printf("exit race: child %d: %v\n", cmd.Process.Pid, err)
					break
				}
				ended++
			default:
				ended++
			}
		case <-time.After(30 * time.Second):
			fmt.Printf("exit race: child %d did not end\n", i)
		}
	}
	Check("exit race: every child ended", ended == children, ended, children)
}
