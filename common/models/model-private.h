/* vmafhip — a loaded VMAF model (model.c loads it, model-predict.c
 * scores with it). */
#ifndef VH_MODEL_PRIVATE_H
#define VH_MODEL_PRIVATE_H

#include "model-tables.h"
#include "vh-model.h"

struct VhModel {
  VhModelDesc desc;      /* points at built-in tables or into `storage` */
  char *name;
  GPtrArray *storage;    /* file-loaded models: owns what desc points at */
  /* v1 chroma correction: the features named *adm3* and *speed_chroma*,
   * -1 when no member uses the correction. */
  int adm3_feature;
  int speed_chroma_feature;
};

#endif /* VH_MODEL_PRIVATE_H */
