/* Private: the names of the reduce ops, for the op table (src/ops/optable.h). */
#define CT__REDUCE_OP_NAMES(X)
