/* The test device (tests/testdev.c): a backend whose memory the host cannot
 * read outside its own calls, registered as PrivateUse1 ("testdev"). */
#ifndef CT_TESTDEV_H
#define CT_TESTDEV_H

#include "ctorch.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CT_TESTDEV(i) CT__DEVICE(CT_DEVICE_PRIVATEUSE1, i)

/* Register the test device (idempotent). */
ct_result ct_testdev_register(void);
/* Whether the host may read p now: false inside the sealed arena. */
bool ct_testdev_readable(const void *p);

#ifdef __cplusplus
}
#endif

#endif
