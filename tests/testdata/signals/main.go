// signals exercises os/signal: the program sends itself SIGUSR1 and SIGUSR2 with kill(2); the
// kernel delivers them to a thread that does not block them, the runtime's handler forwards them
// to the channel.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	c := make(chan os.Signal, 2)
	signal.Notify(c, syscall.SIGUSR1, syscall.SIGUSR2)
	for _, s := range []syscall.Signal{syscall.SIGUSR1, syscall.SIGUSR2} {
		if err := syscall.Kill(os.Getpid(), s); err != nil {
			fmt.Println("kill:", err)
			return
		}
		select {
		case got := <-c:
			fmt.Println("received", got)
		case <-time.After(5 * time.Second):
			fmt.Println("no signal after 5s")
			return
		}
	}
	signal.Ignore(syscall.SIGUSR1)
	syscall.Kill(os.Getpid(), syscall.SIGUSR1) // ignored: nothing happens
	fmt.Println("ignored SIGUSR1, still running")
}
