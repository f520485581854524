package oauth

func browserCommand(u string) (string, []string, error) {
	return "/usr/bin/open", []string{u}, nil
}
