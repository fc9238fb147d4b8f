/* compute/ internal: the CBLAS prototypes (cblas_dgemm). Most libraries name
 * their header cblas.h; MKL's is mkl_cblas.h and Debian's reference CBLAS's
 * cblas-netlib.h. compute/blas.mk passes the name as COMPUTE_CBLAS_H. */
#ifndef COMPUTE_BLAS_CBLAS_H
#define COMPUTE_BLAS_CBLAS_H

#ifndef COMPUTE_CBLAS_H
#define COMPUTE_CBLAS_H <cblas.h>
#endif
#include COMPUTE_CBLAS_H

#endif
