//go:build !linux

package procgroup

const isLinux = false
