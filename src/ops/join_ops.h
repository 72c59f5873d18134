/* Private: the names of the join ops, for the op table (src/ops/optable.h). */
#define CT__JOIN_OP_NAMES(X)
