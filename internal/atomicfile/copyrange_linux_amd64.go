package atomicfile

const sysCopyFileRange = 326
