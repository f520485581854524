package main

import "errors"

// daemonize is the Unix setsid case; Windows has no sessions to leave.
func daemonize() error { return errors.New("daemon mode needs a Unix system") }
