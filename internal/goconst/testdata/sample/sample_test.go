package sample

const StateTest = "IGNORED"
