// Package execcheck holds only a test: the eager chain held against the
// executor (exec.Collect) on the shared case table. It lives apart from the
// eager package's own tests so that those never depend on the executor
// (eager must not import exec, and its tests keep working while exec is
// being changed).
package execcheck
