package oauth

func browserCommand(u string) (string, []string, error) {
	return "rundll32", []string{"url.dll,FileProtocolHandler", u}, nil
}
