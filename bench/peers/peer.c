// peer.c is the C peer of Kiln's benchmark report (bench/, docs/SPEC.md §8): the
// practical limit of each workload, built at run time by `go run ./bench`
// with gcc -O3 -march=native -fopenmp (-ffp-contract=off, so a*x + b is two
// rounded ops as in Kiln, or -ffast-math for the E3 variant) and run as a
// subprocess that times itself; no cgo. Built a second time with
// -DKILN_CBLAS and -lopenblas it is the OpenBLAS peer: its E6 matmuls call
// cblas_sgemm and cblas_dgemm instead of the naive loops.
//
// usage: peer WORKLOAD N RUNS MIN_RUNS BUDGET_MS DIR OUT
//        peer version   (-DKILN_CBLAS only: OpenBLAS's build and chosen core)
//
// It reads its inputs from DIR (x.bin, y.bin, a.bin, b.bin in native byte
// order, written by bench/peer_ext.go), runs WORKLOAD once to warm up and
// then RUNS times (stopping after MIN_RUNS once BUDGET_MS is spent), writes
// the last output to OUT and prints "ok MEDIAN_NS RUNS".
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __AVX512F__
#include <immintrin.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef KILN_CBLAS
#include <cblas.h>
#endif

// E1's scalars; bench/workloads.go spells the same values.
#define E1_A 1.7
#define E1_B 0.3
// E8's step count and α; bench/e8.go spells the same values.
#define E8_STEPS 1000
#define E8_ALPHA 0.25f

static double now_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void *xalloc(size_t bytes) {
	void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
	if (!p) {
		fprintf(stderr, "peer: out of memory\n");
		exit(1);
	}
	memset(p, 0, bytes); // touch every page before timing
	return p;
}

static void *load(const char *dir, const char *name, size_t bytes) {
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "peer: cannot open %s\n", path);
		exit(1);
	}
	void *p = xalloc(bytes);
	if (fread(p, 1, bytes, f) != bytes) {
		fprintf(stderr, "peer: short read of %s\n", path);
		exit(1);
	}
	fclose(f);
	return p;
}

static void save(const char *path, const void *p, size_t bytes) {
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(p, 1, bytes, f) != bytes || fclose(f) != 0) {
		fprintf(stderr, "peer: cannot write %s\n", path);
		exit(1);
	}
}

static long n;
static const float *xf, *af, *bf;
static const int8_t *xi8;
static const uint16_t *yh;
static const double *xd, *ad, *bd;
static float *of;
static uint16_t *oh;
static double od, *odm;
static const int8_t *ai8, *bi8;
static int32_t *oi32;
static const float *gf; // E6kb's output gradient
static long cv_n, cv_h, cv_c, cv_o, cv_k; // E6k's batch, spatial size, features, kernel size

static void copy(void) {
	#pragma omp parallel for simd schedule(static)
	for (long i = 0; i < n; i++) of[i] = xf[i];
}

static void e1(void) {
	const float a = (float)E1_A, b = (float)E1_B;
	#pragma omp parallel for simd schedule(static)
	for (long i = 0; i < n; i++) of[i] = a * xf[i] + b;
}

// e2 is (x*2 + y) * 0.5 with JAX's per-op dtypes: x*2 in int8 (wrapping),
// converted to f16, each f16 op computed in f32 and rounded to f16 (exact
// for f16 add and multiply: f32 has more than 2*11+2 bits).
static inline uint16_t e2_elem(int8_t x, uint16_t y) {
	_Float16 yv;
	memcpy(&yv, &y, 2);
	_Float16 xh = (_Float16)(int8_t)(x * 2);
	_Float16 s = (_Float16)((float)xh + (float)yv);
	_Float16 r = (_Float16)((float)s * 0.5f);
	uint16_t out;
	memcpy(&out, &r, 2);
	return out;
}

static void e2(void) {
	#pragma omp parallel
	{
#ifdef _OPENMP
		long t = omp_get_thread_num(), nt = omp_get_num_threads();
#else
		long t = 0, nt = 1;
#endif
		long lo = n * t / nt / 16 * 16, hi = t == nt - 1 ? n : n * (t + 1) / nt / 16 * 16;
		long i = lo;
#ifdef __AVX512F__
		const __m512 half = _mm512_set1_ps(0.5f);
		for (; i + 16 <= hi; i += 16) {
			__m128i xb = _mm_loadu_si128((const __m128i *)(xi8 + i));
			__m512 x2 = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_add_epi8(xb, xb)));
			__m512 y = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(yh + i)));
			__m256i s = _mm512_cvtps_ph(_mm512_add_ps(x2, y), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
			__m512 r = _mm512_mul_ps(_mm512_cvtph_ps(s), half);
			_mm256_storeu_si256((__m256i *)(oh + i), _mm512_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
		}
#endif
		for (; i < hi; i++) oh[i] = e2_elem(xi8[i], yh[i]);
	}
}

static void e3(void) {
	#pragma omp parallel for simd schedule(static)
	for (long i = 0; i < n; i++) {
		float x = xf[i];
		float t = tanhf(sinf(expf(x * x)) + cosf(x));
		of[i] = logf(2.0f + t) * (1.0f / (1.0f + expf(-x)));
	}
}

static void e4(void) {
	double s = 0, q = 0;
	#pragma omp parallel for simd reduction(+ : s) schedule(static)
	for (long i = 0; i < n; i++) s += xd[i];
	const double mean = s / (double)n;
	#pragma omp parallel for simd reduction(+ : q) schedule(static)
	for (long i = 0; i < n; i++) {
		double d = xd[i] - mean;
		q += d * d;
	}
	od = q;
}

// e6 is a naive i-k-j matmul of n×n matrices, rows split over threads.
static void e6(void) {
	#pragma omp parallel for schedule(static)
	for (long i = 0; i < n; i++) {
		float *c = of + i * n;
		memset(c, 0, n * sizeof *c);
		for (long k = 0; k < n; k++) {
			const float aik = af[i * n + k], *b = bf + k * n;
			#pragma omp simd
			for (long j = 0; j < n; j++) c[j] += aik * b[j];
		}
	}
}

// e6d is e6 in double precision (E6f).
static void e6d(void) {
	#pragma omp parallel for schedule(static)
	for (long i = 0; i < n; i++) {
		double *c = odm + i * n;
		memset(c, 0, n * sizeof *c);
		for (long k = 0; k < n; k++) {
			const double aik = ad[i * n + k], *b = bd + k * n;
			#pragma omp simd
			for (long j = 0; j < n; j++) c[j] += aik * b[j];
		}
	}
}

// e6i8 is E6j: int8 a·b into int32, the naive i-k-j loop (the compiler
// vectorises the widening multiply-add).
static void e6i8(void) {
	#pragma omp parallel for schedule(static)
	for (long i = 0; i < n; i++) {
		int32_t *c = oi32 + i * n;
		memset(c, 0, n * sizeof *c);
		for (long k = 0; k < n; k++) {
			const int32_t aik = ai8[i * n + k];
			const int8_t *b = bi8 + k * n;
			#pragma omp simd
			for (long j = 0; j < n; j++) c[j] += aik * b[j];
		}
	}
}

// conv is E6k: a stride-1 SAME convolution of an NHWC input with an HWIO
// kernel into NHWC, the naive loop over output positions (split over
// threads), kernel positions in row-major order, input features, and
// output features innermost (vectorised); padding contributes nothing.
static void conv(void) {
	const long h = cv_h, c = cv_c, o = cv_o, k = cv_k, pad = (cv_k - 1) / 2;
	#pragma omp parallel for schedule(static)
	for (long p = 0; p < cv_n * h * h; p++) {
		const long b = p / (h * h), y = p / h % h, x = p % h;
		float *out = of + p * o;
		memset(out, 0, o * sizeof *out);
		for (long ky = 0; ky < k; ky++) {
			const long iy = y + ky - pad;
			if (iy < 0 || iy >= h) continue;
			for (long kx = 0; kx < k; kx++) {
				const long ix = x + kx - pad;
				if (ix < 0 || ix >= h) continue;
				const float *in = af + ((b * h + iy) * h + ix) * c, *w = bf + (ky * k + kx) * c * o;
				for (long ci = 0; ci < c; ci++) {
					const float v = in[ci], *wr = w + ci * o;
					#pragma omp simd
					for (long j = 0; j < o; j++) out[j] += v * wr[j];
				}
			}
		}
	}
}

// convgrad is E6kb: E6k's backward pass for the output gradient gf, the
// naive loops: the input gradient (dx, NHWC, the first part of of) over
// input positions (split over threads), kernel positions in row-major
// order and input features, each a dot over the output features; the
// kernel gradient (dw, HWIO, after dx) over kernel positions (split over
// threads), output positions and input features, output features
// innermost (vectorised). Padding contributes nothing.
static void convgrad(void) {
	const long h = cv_h, c = cv_c, o = cv_o, k = cv_k, pad = (cv_k - 1) / 2;
	float *dx = of, *dw = of + cv_n * h * h * c;
	#pragma omp parallel for schedule(static)
	for (long p = 0; p < cv_n * h * h; p++) {
		const long b = p / (h * h), y = p / h % h, x = p % h;
		float *out = dx + p * c;
		memset(out, 0, c * sizeof *out);
		for (long ky = 0; ky < k; ky++) {
			const long gy = y - ky + pad;
			if (gy < 0 || gy >= h) continue;
			for (long kx = 0; kx < k; kx++) {
				const long gx = x - kx + pad;
				if (gx < 0 || gx >= h) continue;
				const float *g = gf + ((b * h + gy) * h + gx) * o, *w = bf + (ky * k + kx) * c * o;
				for (long ci = 0; ci < c; ci++) {
					const float *wr = w + ci * o;
					float s = 0;
					#pragma omp simd reduction(+ : s)
					for (long j = 0; j < o; j++) s += g[j] * wr[j];
					out[ci] += s;
				}
			}
		}
	}
	#pragma omp parallel for schedule(static)
	for (long kp = 0; kp < k * k; kp++) {
		const long ky = kp / k, kx = kp % k;
		float *out = dw + kp * c * o;
		memset(out, 0, c * o * sizeof *out);
		for (long p = 0; p < cv_n * h * h; p++) {
			const long b = p / (h * h), y = p / h % h, x = p % h;
			const long iy = y + ky - pad, ix = x + kx - pad;
			if (iy < 0 || iy >= h || ix < 0 || ix >= h) continue;
			const float *in = af + ((b * h + iy) * h + ix) * c, *g = gf + p * o;
			for (long ci = 0; ci < c; ci++) {
				const float v = in[ci];
				float *wr = out + ci * o;
				#pragma omp simd
				for (long j = 0; j < o; j++) wr[j] += v * g[j];
			}
		}
	}
}

// e8 is E8: E8_STEPS steps of the periodic heat stencil
// u[i] += α·((u[i−1] + u[i+1]) − 2·u[i]) from xf into two buffers of and
// e8b, as bench/e8.go's e8GoStep rounds it: every op one f32 rounding
// (-ffp-contract=off keeps the multiplies out of FMAs), so the result is
// Kiln's bit for bit. One parallel region; each step's loop is split
// statically over the threads, its implicit barrier the swap of buffers.
static float *e8b;
static void e8(void) {
	float *u = of, *v = e8b;
	const float a = E8_ALPHA;
	memcpy(u, xf, n * sizeof *u);
	#pragma omp parallel firstprivate(u, v)
	for (int s = 0; s < E8_STEPS; s++) {
		#pragma omp single nowait
		{
			v[0] = u[0] + a * ((u[n - 1] + u[1]) - 2.0f * u[0]);
			v[n - 1] = u[n - 1] + a * ((u[n - 2] + u[0]) - 2.0f * u[n - 1]);
		}
		#pragma omp for simd schedule(static)
		for (long i = 1; i < n - 1; i++) v[i] = u[i] + a * ((u[i - 1] + u[i + 1]) - 2.0f * u[i]);
		float *t = u;
		u = v, v = t;
	}
}

#ifdef KILN_CBLAS
// The OpenBLAS peer's E6: row-major C = A·B, alpha 1, beta 0; OpenBLAS
// picks its kernel for the CPU (OPENBLAS_CORETYPE unset) and its threads
// (OPENBLAS_NUM_THREADS).
static void e6_blas(void) {
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, af, n, bf, n, 0.0f, of, n);
}

static void e6d_blas(void) {
	cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, ad, n, bd, n, 0.0, odm, n);
}
#define E6_FN e6_blas
#define E6D_FN e6d_blas
#else
#define E6_FN e6
#define E6D_FN e6d
#endif

static int cmp(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv) {
#ifdef KILN_CBLAS
	if (argc == 2 && !strcmp(argv[1], "version")) {
		printf("%s; core %s; %d threads\n", openblas_get_config(), openblas_get_corename(), openblas_get_num_threads());
		return 0;
	}
#endif
	if (argc != 8) {
		fprintf(stderr, "usage: peer WORKLOAD N RUNS MIN_RUNS BUDGET_MS DIR OUT\n");
		return 2;
	}
	const char *w = argv[1], *dir = argv[6], *out = argv[7];
	n = atol(argv[2]);
	int runs = atoi(argv[3]), min_runs = atoi(argv[4]);
	double budget = atof(argv[5]) * 1e6;
	void (*fn)(void) = 0;
	const void *res = 0;
	size_t res_bytes = 0;
	if (!strcmp(w, "copy")) {
		float *x = xalloc(n * sizeof(float));
		for (long i = 0; i < n; i++) x[i] = (float)i;
		xf = x, of = xalloc(n * sizeof(float)), fn = copy;
	} else if (!strcmp(w, "E1")) {
		xf = load(dir, "x.bin", n * sizeof(float)), of = xalloc(n * sizeof(float)), fn = e1;
		res = of, res_bytes = n * sizeof(float);
	} else if (!strcmp(w, "E2")) {
		xi8 = load(dir, "x.bin", n), yh = load(dir, "y.bin", n * 2), oh = xalloc(n * 2), fn = e2;
		res = oh, res_bytes = n * 2;
	} else if (!strcmp(w, "E3")) {
		xf = load(dir, "x.bin", n * sizeof(float)), of = xalloc(n * sizeof(float)), fn = e3;
		res = of, res_bytes = n * sizeof(float);
	} else if (!strcmp(w, "E4")) {
		xd = load(dir, "x.bin", n * sizeof(double)), fn = e4;
		res = &od, res_bytes = sizeof od;
	} else if (!strcmp(w, "E6")) {
		af = load(dir, "a.bin", n * n * sizeof(float)), bf = load(dir, "b.bin", n * n * sizeof(float));
		of = xalloc(n * n * sizeof(float)), fn = E6_FN;
		res = of, res_bytes = n * n * sizeof(float);
	} else if (!strcmp(w, "E6f64")) {
		ad = load(dir, "a.bin", n * n * sizeof(double)), bd = load(dir, "b.bin", n * n * sizeof(double));
		odm = xalloc(n * n * sizeof(double)), fn = E6D_FN;
		res = odm, res_bytes = n * n * sizeof(double);
	} else if (!strcmp(w, "E6i8")) {
		ai8 = load(dir, "a.bin", n * n), bi8 = load(dir, "b.bin", n * n);
		oi32 = xalloc(n * n * sizeof(int32_t)), fn = e6i8;
		res = oi32, res_bytes = n * n * sizeof(int32_t);
	} else if (!strcmp(w, "E6conv")) {
		const int32_t *d = load(dir, "dims.bin", 5 * sizeof(int32_t));
		cv_n = d[0], cv_h = d[1], cv_c = d[2], cv_o = d[3], cv_k = d[4];
		af = load(dir, "x.bin", cv_n * cv_h * cv_h * cv_c * sizeof(float));
		bf = load(dir, "w.bin", cv_k * cv_k * cv_c * cv_o * sizeof(float));
		of = xalloc(cv_n * cv_h * cv_h * cv_o * sizeof(float)), fn = conv;
		res = of, res_bytes = cv_n * cv_h * cv_h * cv_o * sizeof(float);
	} else if (!strcmp(w, "E6convgrad")) {
		const int32_t *d = load(dir, "dims.bin", 5 * sizeof(int32_t));
		cv_n = d[0], cv_h = d[1], cv_c = d[2], cv_o = d[3], cv_k = d[4];
		af = load(dir, "x.bin", cv_n * cv_h * cv_h * cv_c * sizeof(float));
		bf = load(dir, "w.bin", cv_k * cv_k * cv_c * cv_o * sizeof(float));
		gf = load(dir, "g.bin", cv_n * cv_h * cv_h * cv_o * sizeof(float));
		res_bytes = (cv_n * cv_h * cv_h * cv_c + cv_k * cv_k * cv_c * cv_o) * sizeof(float);
		of = xalloc(res_bytes), fn = convgrad, res = of;
	} else if (!strcmp(w, "E8") && n >= 2) {
		xf = load(dir, "x.bin", n * sizeof(float)), of = xalloc(n * sizeof(float)), e8b = xalloc(n * sizeof(float)), fn = e8;
		res = E8_STEPS % 2 ? e8b : of, res_bytes = n * sizeof(float);
	} else {
		fprintf(stderr, "peer: unknown workload %s\n", w);
		return 2;
	}
	fn(); // warm up
	double *t = malloc((runs + 1) * sizeof *t), spent = 0;
	int k = 0;
	while (k < runs && (k < min_runs || spent < budget)) {
		double start = now_ns();
		fn();
		t[k] = now_ns() - start;
		spent += t[k++];
	}
	qsort(t, k, sizeof *t, cmp);
	double med = k % 2 ? t[k / 2] : (t[k / 2 - 1] + t[k / 2]) / 2;
	if (res) save(out, res, res_bytes);
	printf("ok %.0f %d\n", med, k);
	return 0;
}
