package rules

import (
	"fmt"
	"strconv"
	"strings"
)

// Counters count what the rules did: one counter per name a rule declares
// (Rule.Counters); docs/counters.md defines each built-in one precisely. A
// rule whose flag is off leaves its counters at zero. The zero value holds
// the built-in counters, all zero.
type Counters struct {
	// reg declares the counters (nil: Builtin()); vals holds their values
	// by the registry's counter index (nil: all zero).
	reg  *Registry
	vals []int
}

// Counter is one named counter value.
type Counter struct {
	Name  string
	Value int
}

func (c Counters) registry() *Registry {
	if c.reg == nil {
		return Builtin()
	}
	return c.reg
}

// Get returns the value of the counter with JSON name name (0 for a
// counter no rule declares).
func (c Counters) Get(name string) int {
	i, ok := c.registry().counterIndex[name]
	if !ok || i >= len(c.vals) {
		return 0
	}
	return c.vals[i]
}

// Set sets the counter with JSON name name; a name no rule of the registry
// declares is an error.
func (c *Counters) Set(name string, v int) error {
	reg := c.registry()
	i, ok := reg.counterIndex[name]
	if !ok {
		return fmt.Errorf("unknown counter %q (known: %s)", name, strings.Join(reg.CounterNames(), ", "))
	}
	vals := make([]int, len(reg.counterNames))
	copy(vals, c.vals)
	vals[i] = v
	c.reg, c.vals = reg, vals
	return nil
}

// List returns the counters by JSON name, in the order of their positions
// (CounterDef.Position): for the built-in rules, that of docs/design.md §6.
func (c Counters) List() []Counter {
	reg := c.registry()
	out := make([]Counter, len(reg.counterOrder))
	for k, i := range reg.counterOrder {
		out[k] = Counter{Name: reg.counterNames[i]}
		if i < len(c.vals) {
			out[k].Value = c.vals[i]
		}
	}
	return out
}

// String renders "pushedFilters=1 prunedProjections=0 ...", in List order.
func (c Counters) String() string {
	var b strings.Builder
	for i, kv := range c.List() {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(kv.Name)
		b.WriteByte('=')
		b.WriteString(strconv.Itoa(kv.Value))
	}
	return b.String()
}

// Moved renders only the counters that moved, "pushedFilters=1
// scanProjections=1" in List order, or "none": explain's counters line, which
// a rule added later (with counters of its own, zero on the old plans)
// leaves unchanged.
func (c Counters) Moved() string {
	var b strings.Builder
	for _, kv := range c.List() {
		if kv.Value == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(kv.Name)
		b.WriteByte('=')
		b.WriteString(strconv.Itoa(kv.Value))
	}
	if b.Len() == 0 {
		return "none"
	}
	return b.String()
}

// MarshalJSON renders the counters as one JSON object in List order:
// {"pushedFilters":1,"prunedProjections":0,...}.
func (c Counters) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, kv := range c.List() {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(kv.Name))
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(kv.Value))
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// IsZero reports whether every counter is zero.
func (c Counters) IsZero() bool {
	for _, v := range c.vals {
		if v != 0 {
			return false
		}
	}
	return true
}

// Equal reports whether c and d hold the same counters with the same
// values.
func (c Counters) Equal(d Counters) bool {
	if c.registry() == d.registry() {
		for i := range max(len(c.vals), len(d.vals)) {
			if at(c.vals, i) != at(d.vals, i) {
				return false
			}
		}
		return true
	}
	a, b := c.List(), d.List()
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func at(vals []int, i int) int {
	if i < len(vals) {
		return vals[i]
	}
	return 0
}
