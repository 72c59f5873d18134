/* Private: the names of the sort ops, for the op table (src/ops/optable.h). */
#define CT__SORT_OP_NAMES(X)
