// Runnable example: how a kernel drives the scheduler.
// SPDX-License-Identifier: BSD-3-Clause

package sched_test

import (
	"fmt"

	"gmpos/sched"
)

// clock is a toy Platform: time advances only when the "kernel" says so,
// WakeM and ParkM are logged.
type clock struct{ now int64 }

func (c *clock) Now() int64 { return c.now }
func (c *clock) WakeM(pid int) {
	fmt.Printf("  IPI to core %d\n", pid)
}
func (c *clock) ParkM(pid int) {
	fmt.Printf("  core %d halts\n", pid)
}

// S is how the kernel holds its scheduler: a statically allocated value,
// initialised at boot without a heap.
var S sched.Sched

func Example() {
	plat := &clock{}
	if err := S.Init(sched.Config{NP: 2, PolicyName: "gmp", Platform: plat}); err != nil {
		panic(err)
	}
	fmt.Println("boot: both cores enter the idle loop")
	S.Schedule(0)
	S.Schedule(1)

	fmt.Println("interrupt on core 0 creates main (runnext), wakep:")
	main := S.NewProc(0)
	g, inherit := S.Schedule(0)
	fmt.Printf("core 0 runs G%d (inherits slice: %v)\n", g, inherit)
	g, _ = S.Schedule(1) // the IPI'd core looks, finds nothing
	fmt.Printf("core 1 found G%d\n", g)

	fmt.Println("main spawns worker into P0's runnext:")
	worker := S.NewProc(0)
	plat.now += 5_000 // 5 µs later the IPI'd core looks again
	g, _ = S.Schedule(1)
	fmt.Printf("core 1 steals G%d from P0's runnext (worker=G%d)\n", g, worker)

	fmt.Println("main blocks in a syscall:")
	S.Park(0)
	S.Schedule(0)

	plat.now += sched.DefaultSlice
	if S.Tick(1, plat.now) {
		fmt.Println("10 ms later the timer preempts worker to the GRQ:")
		S.Preempt(1)
		g, _ = S.Schedule(1)
		fmt.Printf("core 1 runs G%d\n", g)
	}

	fmt.Println("the syscall completes (IRQ on core 0): goready")
	S.Ready(main, 0)
	g, _ = S.Schedule(0)
	fmt.Printf("core 0 runs G%d\n", g)
	fmt.Println(string(S.AppendTrace(nil)))

	// Output:
	// boot: both cores enter the idle loop
	//   core 0 halts
	//   core 1 halts
	// interrupt on core 0 creates main (runnext), wakep:
	//   IPI to core 1
	// core 0 runs G1 (inherits slice: true)
	//   core 1 halts
	// core 1 found G0
	// main spawns worker into P0's runnext:
	//   IPI to core 1
	// core 1 steals G2 from P0's runnext (worker=G2)
	// main blocks in a syscall:
	//   core 0 halts
	// 10 ms later the timer preempts worker to the GRQ:
	//   IPI to core 0
	// core 1 runs G2
	// the syscall completes (IRQ on core 0): goready
	// core 0 runs G1
	// SCHED np=2 idle=0 spinning=0 live=2 grq=0 [P0 cur=1 runq=0 next=0 switches=2] [P1 cur=2 runq=0 next=0 switches=2]
}
