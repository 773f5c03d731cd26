package simd_test

func transcendentalCases() []kcase { return nil }
