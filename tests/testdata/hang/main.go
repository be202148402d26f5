// Guest: never exits (but is not deadlocked: a timer is always pending).
// The runner's -timeout must stop it.
package main

import (
	"fmt"
	"time"
)

func main() {
	fmt.Println("sleeping forever")
	for {
		time.Sleep(time.Second)
	}
}
