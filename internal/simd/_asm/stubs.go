package main

func registerTranscendental() {}
