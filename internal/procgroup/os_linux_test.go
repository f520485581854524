package procgroup

const isLinux = true
