// Package kernel is the gmpos kernel: linked into an ordinary Go program (import _ "gmpos/kernel"),
// it boots the machine and provides the Linux process environment the Go runtime expects.
package kernel

import _ "gmpos/kernel/arch/amd64"
