/* Private to the data files: what one of them uses from another that comes
 * later in the amalgamation, and the worker thread's state. */

/* The list's transforms checked (src/data/transform.c). */
static ct_result ct__check_transforms(const ct_transform *list, int n);

/* The loader's worker that runs on this thread (id -1 elsewhere): src/data/loader.c sets it. */
static CT__TLS ct_worker_info ct__worker_info = {-1, 0, 0, NULL, NULL};
