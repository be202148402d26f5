// pipes: os.Pipe and raw pipe2 as a Go program uses them — through the runtime's netpoller
// (os.Pipe's ends are non-blocking) and blocking — with Linux's rules for EOF, EPIPE and
// SIGPIPE, PIPE_BUF atomicity, a full pipe, fstat and F_GETPIPE_SZ, and bad arguments. Each
// line is "check NAME: true|false"; the test runs the same program natively too.
package main

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
	"unsafe"
)

func check(name string, ok bool) { fmt.Printf("check %s: %v\n", name, ok) }

const (
	fGetPipeSz = 1032
	fSetPipeSz = 1031
)

func pipe2(flags int) (r, w int, e syscall.Errno) {
	var fds [2]int32
	_, _, e = syscall.RawSyscall(syscall.SYS_PIPE2, uintptr(unsafe.Pointer(&fds)), uintptr(flags), 0)
	return int(fds[0]), int(fds[1]), e
}

func main() {
	// os.Pipe: a round trip, then 4 MiB between goroutines (the writer outruns the 64 KiB pipe
	// and parks in the netpoller until the reader makes room).
	r, w, err := os.Pipe()
	check("os.Pipe", err == nil)
	_, err = w.Write([]byte("hello"))
	buf := make([]byte, 16)
	n, err2 := r.Read(buf)
	check("a write comes out of the read end", err == nil && err2 == nil && string(buf[:n]) == "hello")

	data := make([]byte, 4<<20)
	for i := range data {
		data[i] = byte(i * 7 / 3)
	}
	done := make(chan error, 1)
	go func() {
		_, err := w.Write(data)
		done <- errors.Join(err, w.Close())
	}()
	got, err := io.ReadAll(r)
	check("4 MiB through the pipe, intact, then EOF after the writer closes", err == nil && <-done == nil &&
		sha256.Sum256(got) == sha256.Sum256(data))
	r.Close()

	// EPIPE and SIGPIPE: with the read end closed a write fails, and the writer gets SIGPIPE
	// (the runtime passes it to Notify; without Notify it ignores it on fds other than 1 and 2).
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGPIPE)
	r, w, _ = os.Pipe()
	r.Close()
	_, err = w.Write([]byte("x"))
	check("write with the read end closed: EPIPE", errors.Is(err, syscall.EPIPE))
	select {
	case <-sigs:
		check("... and SIGPIPE", true)
	case <-time.After(5 * time.Second):
		check("... and SIGPIPE", false)
	}
	signal.Stop(sigs)
	w.Close()

	// Raw, non-blocking: empty is EAGAIN; the pipe holds 64 KiB; a write of at most PIPE_BUF
	// bytes is all or nothing, a longer one takes what fits.
	rf, wf, e := pipe2(syscall.O_NONBLOCK | syscall.O_CLOEXEC)
	check("pipe2(O_NONBLOCK|O_CLOEXEC)", e == 0)
	_, err = syscall.Read(rf, buf)
	check("read of an empty pipe: EAGAIN", err == syscall.EAGAIN)
	sz, _, e := syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(wf), fGetPipeSz, 0)
	check("F_GETPIPE_SZ: 65536", e == 0 && sz == 65536)
	// Page-sized pieces: Linux keeps a pipe as 16 page buffers, gmpos as one 64 KiB ring, and
	// these figures are the same for both.
	chunk := make([]byte, 4096)
	total := 0
	for {
		n, err := syscall.Write(wf, chunk)
		if err != nil {
			check("a full pipe: EAGAIN", err == syscall.EAGAIN)
			break
		}
		total += n
	}
	check("the pipe held 65536 bytes", total == 65536)
	big := make([]byte, 10000)
	n, _ = syscall.Read(rf, big[:3000])
	_, err = syscall.Write(wf, big[:4096])
	check("a PIPE_BUF write with less room: EAGAIN (atomic)", n == 3000 && err == syscall.EAGAIN)
	n, _ = syscall.Read(rf, big[:1096])
	n2, err := syscall.Write(wf, big[:8000])
	check("a longer write takes what fits", n == 1096 && err == nil && n2 == 4096)
	var st syscall.Stat_t
	syscall.Fstat(rf, &st)
	check("fstat: a FIFO, mode 0600", st.Mode == syscall.S_IFIFO|0o600)
	_, err = syscall.Seek(rf, 0, io.SeekStart)
	check("lseek: ESPIPE", err == syscall.ESPIPE)
	syscall.Close(wf)
	drained := 0
	for {
		n, err := syscall.Read(rf, big)
		if n <= 0 {
			check("after the writer closes: the rest, then EOF", err == nil && n == 0 && drained == 65536)
			break
		}
		drained += n
	}
	syscall.Close(rf)

	// Blocking: a reader waits in the kernel until a writer comes.
	rf, wf, _ = pipe2(0)
	go func() {
		time.Sleep(50 * time.Millisecond)
		syscall.Write(wf, []byte("late"))
	}()
	n, err = syscall.Read(rf, buf)
	check("a blocking read waits for the writer", err == nil && string(buf[:n]) == "late")
	syscall.Close(rf)
	syscall.Close(wf)

	// Bad arguments, and nothing leaks: the next pipe gets the same fds.
	a, b, _ := pipe2(0)
	syscall.Close(a)
	syscall.Close(b)
	_, _, e = pipe2(0x1000000)
	check("pipe2(unknown flag): EINVAL", e == syscall.EINVAL)
	_, _, e = syscall.RawSyscall(syscall.SYS_PIPE2, 8, 0, 0)
	check("pipe2(bad pointer): EFAULT", e == syscall.EFAULT)
	c, d, _ := pipe2(0)
	check("no fd leaked by the failures", c == a && d == b)

	// splice between two pipes moves the bytes without a user buffer; its argument checks.
	r1, w1, _ := pipe2(syscall.O_NONBLOCK)
	r2, w2, _ := pipe2(syscall.O_NONBLOCK)
	splice := func(in int, offIn uintptr, out int, n, flags uintptr) (int, syscall.Errno) {
		r, _, e := syscall.Syscall6(syscall.SYS_SPLICE, uintptr(in), offIn, uintptr(out), 0, n, flags)
		return int(r), e
	}
	syscall.Write(w1, []byte("hello"))
	n, e = splice(r1, 0, w2, 100, 0)
	m, _ := syscall.Read(r2, buf)
	check("splice pipe to pipe", e == 0 && n == 5 && string(buf[:m]) == "hello")
	n, e = splice(r1, 0, w2, 100, 2 /* SPLICE_F_NONBLOCK */)
	check("splice from an empty pipe, non-blocking: EAGAIN", e == syscall.EAGAIN)
	n, e = splice(r1, 0, w2, 0, 0)
	check("splice of 0 bytes: 0", e == 0 && n == 0)
	_, e = splice(r1, 0, w2, 1, 0x10)
	check("splice(unknown flag): EINVAL", e == syscall.EINVAL)
	var off int64
	_, e = splice(r1, uintptr(unsafe.Pointer(&off)), w2, 1, 0)
	check("splice with an offset on a pipe: ESPIPE", e == syscall.ESPIPE)
	_, e = splice(r1, 0, w1, 1, 0)
	check("splice of a pipe into itself: EINVAL", e == syscall.EINVAL)
	for _, fd := range []int{r1, w1, r2, w2} {
		syscall.Close(fd)
	}

	// A pipe in the netpoller's hands again: the read end becomes readable while blocked in
	// epoll_wait (os.File.Read with a deadline).
	r, w, _ = os.Pipe()
	r.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	_, err = r.Read(buf)
	check("read deadline on an empty pipe: timeout", errors.Is(err, os.ErrDeadlineExceeded))
	r.SetReadDeadline(time.Time{})
	go func() {
		time.Sleep(20 * time.Millisecond)
		w.Write(bytes.Repeat([]byte("z"), 3))
	}()
	n, err = r.Read(buf)
	check("epoll wakes the reader", err == nil && n == 3)
}
