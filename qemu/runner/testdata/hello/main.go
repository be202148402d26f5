// A guest program for the runner's own tests (linked with the fake kernel,
// which never runs it).
package main

func main() { println("hello") }
