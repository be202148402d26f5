package kernel

import (
	"math/rand"
	"testing"
	"unsafe"

	"gmpos/kernel/mm"
	"gmpos/kernel/vdso"
)

// TestVDSOClockMatchesNanotime: the clock the kernel publishes for the vDSO computes, for any
// counter value, exactly what the kernel's own clock_gettime computes (nanotime, walltime).
func TestVDSOClockMatchesNanotime(t *testing.T) {
	saved := clock
	defer func() { clock = saved }()
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 1000; i++ {
		hz := 1e8 + r.Uint64()%5e9
		clock.hz, clock.mult = hz, (uint64(1e9)<<32)/hz
		clock.cycles0 = r.Uint64()
		clock.realBase = r.Int63()
		c := vdsoClock()
		d := r.Uint64() >> uint(r.Intn(64))
		if got, want := c.Monotonic(clock.cycles0+d), cyclesToNS(d); got != want {
			t.Fatalf("hz %d, %d cycles after time 0: vDSO %d ns, kernel %d ns", hz, d, got, want)
		}
		if got, want := c.Realtime(clock.cycles0+d), clock.realBase+cyclesToNS(d); got != want {
			t.Fatalf("realtime: vDSO %d, kernel %d", got, want)
		}
	}
	if c := vdsoClock(); c.Mode != vdso.ModeCounter || c.CoarseRes != coarseResolution {
		t.Errorf("published %+v", c)
	}
}

// TestVDSOOption: vdso=0 turns the vDSO off; any other value, or none, leaves it on.
func TestVDSOOption(t *testing.T) {
	for line, off := range map[string]bool{"k": false, "k vdso=1": false, "k vdso=0": true, "k -- vdso=0": false} {
		resetCmd()
		parseCmdline([]byte(line))
		if cmd.noVDSO != off {
			t.Errorf("%q: noVDSO = %v, want %v", line, cmd.noVDSO, off)
		}
	}
}

// testVVar stands for the vvar frame: a global, because a goroutine stack may move while the
// kernel code writes through the address it was given.
var testVVar [vdso.PageSize / 8]uint64

// TestVDSOPublish: vdsoPublish writes the kernel clock into the vvar page through the direct map,
// without allocating (it may run in trap context), and a reader gets exactly vdsoClock.
func TestVDSOPublish(t *testing.T) {
	saved := vdsoState
	defer func() { vdsoState = saved }()
	vdsoState.vvar = uintptr(unsafe.Pointer(&testVVar)) - mm.PhysToVirt(0) // PhysToVirt(vvar) = &testVVar
	if n := testing.AllocsPerRun(10, vdsoPublish); n != 0 {
		t.Errorf("vdsoPublish allocates %v times", n)
	}
	if got := (*vdso.Data)(unsafe.Pointer(&testVVar)).Read(); got != vdsoClock() {
		t.Errorf("the page reads %+v, want %+v", got, vdsoClock())
	}
}
