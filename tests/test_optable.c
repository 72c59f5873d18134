#define _POSIX_C_SOURCE 200809L /* opendir */
/* The op table against the golden data: every op ctorch lists must have cases
 * in some tests/golden/<name>.txt (their lines start with "<op>|"), so that no op
 * escapes a comparison with PyTorch. */
#include "harness.h"

#include <dirent.h>

/* Whether some line of some golden listing starts with "name|". */
static int has_cases(const char *name)
{
    DIR *dir = opendir("tests/golden");
    struct dirent *e;
    char path[1024], line[8192], prefix[256];
    int found = 0;
    snprintf(prefix, sizeof prefix, "%s|", name);
    while (dir && !found && (e = readdir(dir))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".txt")) continue;
        snprintf(path, sizeof path, "tests/golden/%s", e->d_name);
        FILE *f = fopen(path, "r");
        while (f && !found && fgets(line, sizeof line, f)) found = !strncmp(line, prefix, strlen(prefix));
        if (f) fclose(f);
    }
    if (dir) closedir(dir);
    return found;
}

static void test_every_op_has_golden_cases(void)
{
    CHECK(ct_op_count() > 0);
    for (int i = 0; i < ct_op_count(); i++)
        if (!has_cases(ct_op_name(i))) ct_test_fail(__FILE__, __LINE__, "op %s has no golden cases", ct_op_name(i));
    CHECK(ct_op_name(ct_op_count()) == NULL);
}

int main(void)
{
    RUN(test_every_op_has_golden_cases);
    return ct_test_report();
}
