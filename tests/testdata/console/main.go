// console: the program's stdin and the signals a terminal sends.
//
//	count    read stdin to its end: lines, bytes and SHA-256
//	notify   print "ready", wait for SIGINT or SIGTERM through signal.Notify, print its name
//	default  print "ready", then wait: SIGINT's default action ends the program
//	ignore   ignore SIGINT, print "ready", wait a minute
package main

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	switch os.Args[1] {
	case "count":
		h := sha256.New()
		lines := 0
		r := bufio.NewReader(io.TeeReader(os.Stdin, h))
		n := 0
		for {
			b, err := r.ReadBytes('\n')
			n += len(b)
			if len(b) > 0 && b[len(b)-1] == '\n' {
				lines++
			}
			if err != nil {
				if err != io.EOF {
					fmt.Println("error:", err)
				}
				break
			}
		}
		fmt.Printf("%d lines, %d bytes, sha256 %x\n", lines, n, h.Sum(nil))
	case "notify":
		c := make(chan os.Signal, 1)
		signal.Notify(c, os.Interrupt, syscall.SIGTERM)
		fmt.Println("ready")
		fmt.Println("got", <-c)
	case "default":
		fmt.Println("ready")
		time.Sleep(time.Minute)
		fmt.Println("still here")
	case "ignore":
		signal.Ignore(os.Interrupt)
		fmt.Println("ready")
		time.Sleep(time.Minute)
		fmt.Println("still here")
	}
}
