// Guest: maps: growth, deletion, iteration, clear, struct keys.
package main

import (
	"fmt"
	"sort"
	"strconv"
)

func main() {
	m := make(map[string]int)
	const n = 100000
	for i := 0; i < n; i++ {
		m["k"+strconv.Itoa(i)] = i
	}
	for i := 0; i < n; i += 2 {
		delete(m, "k"+strconv.Itoa(i))
	}
	sum := 0
	for k, v := range m {
		if k != "k"+strconv.Itoa(v) {
			fmt.Println("BAD entry", k, v)
		}
		sum += v
	}
	fmt.Println("len", len(m), "sum", sum)

	type key struct {
		a int
		b string
	}
	s := map[key][]int{}
	for i := 0; i < 1000; i++ {
		k := key{i % 10, strconv.Itoa(i % 7)}
		s[k] = append(s[k], i)
	}
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, fmt.Sprint(k.a, k.b))
	}
	sort.Strings(keys)
	fmt.Println("struct keys", len(s), keys[0], keys[len(keys)-1])
	clear(m)
	fmt.Println("cleared", len(m))
}
