package sample

type Color string

const (
	Red   Color = "RED"
	Green Color = "GREEN"
)

const (
	StateOn  = "ON"
	StateOff = "OFF"
	other    = "X"
	count    = 3
)

const iotaLike, second = "a", "b"
