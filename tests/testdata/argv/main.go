// argv prints how many arguments and environment variables it got and a SHA-256 of each list
// (strings NUL-separated, in order), so that a test can pass thousands of them, empty ones and
// long ones among them, and check they arrived whole.
package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"strings"
)

func main() {
	args := os.Args[1:]
	env := os.Environ()
	fmt.Printf("%d args %x\n", len(args), sha256.Sum256([]byte(strings.Join(args, "\x00"))))
	fmt.Printf("%d env %x\n", len(env), sha256.Sum256([]byte(strings.Join(env, "\x00"))))
}
