// devfiles: the memory devices as programs use them, and os/exec, which opens /dev/null before
// it tries to start the command. Lines "check NAME: true|false" hold natively too; the last
// line is what starting a command says.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
)

func check(name string, ok bool) { fmt.Printf("check %s: %v\n", name, ok) }

func main() {
	b, err := os.ReadFile("/dev/null")
	check("/dev/null reads as empty", err == nil && len(b) == 0)
	check("/dev/null takes writes", os.WriteFile("/dev/null", []byte("gone"), 0o666) == nil)

	f, err := os.Open("/dev/zero")
	buf := bytes.Repeat([]byte{7}, 10000)
	n, _ := io.ReadFull(f, buf)
	check("/dev/zero reads zeros", err == nil && n == len(buf) && bytes.Count(buf, []byte{0}) == len(buf))
	f.Close()

	f, err = os.OpenFile("/dev/full", os.O_RDWR, 0)
	_, werr := f.Write([]byte("x"))
	check("/dev/full: ENOSPC on write", err == nil && errors.Is(werr, syscall.ENOSPC))
	f.Close()

	f, err = os.Open("/dev/urandom")
	r := make([]byte, 64)
	n, _ = io.ReadFull(f, r)
	check("/dev/urandom reads random bytes", err == nil && n == 64 && !bytes.Equal(r, make([]byte, 64)))
	st, serr := f.Stat()
	check("fstat: a character device, 0666", serr == nil && st.Mode()&os.ModeCharDevice != 0 && st.Mode().Perm() == 0o666)
	f.Close()

	_, err = os.OpenFile("/dev/null", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o666)
	check("O_CREAT|O_EXCL on /dev/null: EEXIST", errors.Is(err, os.ErrExist))

	err = exec.Command("/bin/true").Run()
	fmt.Println("exec:", err)
}
