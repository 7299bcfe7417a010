package atomicfile

const sysCopyFileRange = 285
