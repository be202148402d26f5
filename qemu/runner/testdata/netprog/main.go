// A guest program for the runner's own tests that imports net only indirectly (through
// net/http): -net auto must choose user networking for it.
package main

import "net/http"

func main() { println(http.StatusOK) }
