// Avro schemas of Hudi instant content as plain JSON objects, in the exact form Java Avro embeds
// (Schema.toString(), with "avro.java.string" props). Transcribed from the avro.schema headers of real
// instant files (Hudi 1.x: commit, replacecommit, compaction plan, clustering plan, rollback plan/metadata,
// index plan/commit) and from apache/hudi hudi-common/src/main/avro/*.avsc for the others (clean plan/metadata,
// savepoint, restore, LSM timeline instant, delete record list, archived meta entry).
// Field order IS the binary layout: never reorder fields.

// Shared by HoodieCommitMetadata and HoodieReplaceCommitMetadata: each embeds the full record, as Java does.
const HoodieWriteStat = {"type": "record", "name": "HoodieWriteStat", "fields": [
    {"name": "fileId", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": null},
    {"name": "path", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": null},
    {"name": "prevCommit", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": null},
    {"name": "numWrites", "type": ["null", "long"], "default": null},
    {"name": "numDeletes", "type": ["null", "long"], "default": null},
    {"name": "numUpdateWrites", "type": ["null", "long"], "default": null},
    {"name": "totalWriteBytes", "type": ["null", "long"], "default": null},
    {"name": "totalWriteErrors", "type": ["null", "long"], "default": null},
    {"name": "partitionPath", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": null},
    {"name": "totalLogRecords", "type": ["null", "long"], "default": null},
    {"name": "totalLogFiles", "type": ["null", "long"], "default": null},
    {"name": "totalUpdatedRecordsCompacted", "type": ["null", "long"], "default": null},
    {"name": "numInserts", "type": ["null", "long"], "default": null},
    {"name": "totalLogBlocks", "type": ["null", "long"], "default": null},
    {"name": "totalCorruptLogBlock", "type": ["null", "long"], "default": null},
    {"name": "totalRollbackBlocks", "type": ["null", "long"], "default": null},
    {"name": "fileSizeInBytes", "type": ["null", "long"], "default": null},
    {"name": "logVersion", "type": ["null", "int"], "default": null},
    {"name": "logOffset", "type": ["null", "long"], "default": null},
    {"name": "baseFile", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": null},
    {"name": "logFiles", "type": ["null", {"type": "array", "items": {"type": "string", "avro.java.string": "String"}, "default": null}], "default": null},
    {"name": "cdcStats", "type": ["null", {"type": "map", "values": "long", "avro.java.string": "String", "default": null}], "default": null},
    {"name": "prevBaseFile", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": null},
    {"name": "minEventTime", "type": ["null", "long"], "default": null},
    {"name": "maxEventTime", "type": ["null", "long"], "default": null},
    {"name": "runtimeStats", "type": ["null", {"type": "record", "name": "HoodieRuntimeStats", "fields": [
      {"name": "totalScanTime", "type": ["null", "long"], "default": null},
      {"name": "totalCreateTime", "type": ["null", "long"], "default": null},
      {"name": "totalUpsertTime", "type": ["null", "long"], "default": null}
    ]}], "default": null},
    {"name": "totalLogFilesCompacted", "type": ["null", "long"], "default": null},
    {"name": "totalLogReadTimeMs", "type": ["null", "long"], "default": null},
    {"name": "totalLogSizeCompacted", "type": ["null", "long"], "default": null},
    {"name": "tempPath", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": null},
    {"name": "numUpdates", "type": ["null", "long"], "default": null}
  ]};

const HoodieCommitMetadata = {"type": "record", "name": "HoodieCommitMetadata", "namespace": "org.apache.hudi.avro.model", "fields": [
  {"name": "partitionToWriteStats", "type": ["null", {"type": "map", "values": {"type": "array", "items": HoodieWriteStat}, "avro.java.string": "String"}], "default": null},
  {"name": "compacted", "type": ["null", "boolean"], "default": null},
  {"name": "extraMetadata", "type": ["null", {"type": "map", "values": {"type": "string", "avro.java.string": "String"}, "avro.java.string": "String", "default": null}], "default": null},
  {"name": "version", "type": ["int", "null"], "default": 1},
  {"name": "operationType", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": null}
]};

const HoodieReplaceCommitMetadata = {"type": "record", "name": "HoodieReplaceCommitMetadata", "namespace": "org.apache.hudi.avro.model", "fields": [
  {"name": "partitionToWriteStats", "type": ["null", {"type": "map", "values": {"type": "array", "items": HoodieWriteStat}, "avro.java.string": "String"}], "default": null},
  {"name": "compacted", "type": ["null", "boolean"], "default": null},
  {"name": "extraMetadata", "type": ["null", {"type": "map", "values": {"type": "string", "avro.java.string": "String"}, "avro.java.string": "String"}], "default": null},
  {"name": "version", "type": ["int", "null"], "default": 1},
  {"name": "operationType", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": null},
  {"name": "partitionToReplaceFileIds", "type": ["null", {"type": "map", "values": {"type": "array", "items": {"type": "string", "avro.java.string": "String"}}, "avro.java.string": "String"}], "default": null}
]};

const HoodieCompactionPlan = {"type": "record", "name": "HoodieCompactionPlan", "namespace": "org.apache.hudi.avro.model", "fields": [
  {"name": "operations", "type": ["null", {"type": "array", "items": {"type": "record", "name": "HoodieCompactionOperation", "fields": [
    {"name": "baseInstantTime", "type": ["null", {"type": "string", "avro.java.string": "String"}]},
    {"name": "deltaFilePaths", "type": ["null", {"type": "array", "items": {"type": "string", "avro.java.string": "String"}}], "default": null},
    {"name": "dataFilePath", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": null},
    {"name": "fileId", "type": ["null", {"type": "string", "avro.java.string": "String"}]},
    {"name": "partitionPath", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": null},
    {"name": "metrics", "type": ["null", {"type": "map", "values": "double", "avro.java.string": "String"}], "default": null},
    {"name": "bootstrapFilePath", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": null}
  ]}}], "default": null},
  {"name": "extraMetadata", "type": ["null", {"type": "map", "values": {"type": "string", "avro.java.string": "String"}, "avro.java.string": "String"}], "default": null},
  {"name": "version", "type": ["int", "null"], "default": 1},
  {"name": "strategy", "type": ["null", {"type": "record", "name": "HoodieCompactionStrategy", "fields": [
    {"name": "compactorClassName", "type": ["null", {"type": "string", "avro.java.string": "String"}], "doc": "The class name that is provided here should extend CompactionExecutionStrategy abstract class, idea is that the plan generator will also provide the execution strategy to use.", "default": null},
    {"name": "strategyParams", "type": ["null", {"type": "map", "values": {"type": "string", "avro.java.string": "String"}, "avro.java.string": "String"}], "doc": "These parameters play a key role in determining which action type it is i.e. compaction or logcompaction and it will also include configs that determine how compaction needs to be executed.", "default": null},
    {"name": "version", "type": ["int", "null"], "default": 1}
  ]}], "default": null},
  {"name": "preserveHoodieMetadata", "type": ["boolean", "null"], "default": false},
  {"name": "missingSchedulePartitions", "type": ["null", {"type": "array", "items": {"type": "string", "avro.java.string": "String"}}], "default": null}
]};

const HoodieRequestedReplaceMetadata = {"type": "record", "name": "HoodieRequestedReplaceMetadata", "namespace": "org.apache.hudi.avro.model", "fields": [
  {"name": "operationType", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": null},
  {"name": "clusteringPlan", "type": ["null", {"type": "record", "name": "HoodieClusteringPlan", "fields": [
    {"name": "inputGroups", "type": ["null", {"type": "array", "items": {"type": "record", "name": "HoodieClusteringGroup", "fields": [
      {"name": "slices", "type": ["null", {"type": "array", "items": {"type": "record", "name": "HoodieSliceInfo", "fields": [
        {"name": "dataFilePath", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": null},
        {"name": "deltaFilePaths", "type": ["null", {"type": "array", "items": {"type": "string", "avro.java.string": "String"}}], "default": null},
        {"name": "fileId", "type": ["null", {"type": "string", "avro.java.string": "String"}]},
        {"name": "partitionPath", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": null},
        {"name": "bootstrapFilePath", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": null},
        {"name": "version", "type": ["int", "null"], "default": 1}
      ]}}], "default": null},
      {"name": "metrics", "type": ["null", {"type": "map", "values": "double", "avro.java.string": "String"}], "default": null},
      {"name": "numOutputFileGroups", "type": ["int", "null"], "default": 1},
      {"name": "extraMetadata", "type": ["null", {"type": "map", "values": {"type": "string", "avro.java.string": "String"}, "avro.java.string": "String"}], "default": null},
      {"name": "version", "type": ["int", "null"], "default": 1}
    ]}}], "default": null},
    {"name": "strategy", "type": ["null", {"type": "record", "name": "HoodieClusteringStrategy", "fields": [
      {"name": "strategyClassName", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": null},
      {"name": "strategyParams", "type": ["null", {"type": "map", "values": {"type": "string", "avro.java.string": "String"}, "avro.java.string": "String"}], "default": null},
      {"name": "version", "type": ["int", "null"], "default": 1}
    ]}], "default": null},
    {"name": "extraMetadata", "type": ["null", {"type": "map", "values": {"type": "string", "avro.java.string": "String"}, "avro.java.string": "String"}], "default": null},
    {"name": "version", "type": ["int", "null"], "default": 1},
    {"name": "preserveHoodieMetadata", "type": ["null", "boolean"], "default": null},
    {"name": "missingSchedulePartitions", "type": ["null", {"type": "array", "items": {"type": "string", "avro.java.string": "String"}}], "default": null}
  ]}], "default": null},
  {"name": "extraMetadata", "type": ["null", {"type": "map", "values": {"type": "string", "avro.java.string": "String"}, "avro.java.string": "String"}], "default": null},
  {"name": "version", "type": ["int", "null"], "default": 1}
]};

const HoodieRollbackPlan = {"type": "record", "name": "HoodieRollbackPlan", "namespace": "org.apache.hudi.avro.model", "fields": [
  {"name": "instantToRollback", "type": ["null", {"type": "record", "name": "HoodieInstantInfo", "fields": [
    {"name": "commitTime", "type": {"type": "string", "avro.java.string": "String"}},
    {"name": "action", "type": {"type": "string", "avro.java.string": "String"}}
  ]}], "doc": "Hoodie instant that needs to be rolled back", "default": null},
  {"name": "RollbackRequests", "type": ["null", {"type": "array", "items": {"type": "record", "name": "HoodieRollbackRequest", "fields": [
    {"name": "partitionPath", "type": {"type": "string", "avro.java.string": "String"}},
    {"name": "fileId", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": null},
    {"name": "latestBaseInstant", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": null},
    {"name": "filesToBeDeleted", "type": {"type": "array", "items": {"type": "string", "avro.java.string": "String"}, "default": []}, "default": []},
    {"name": "logBlocksToBeDeleted", "type": ["null", {"type": "map", "values": "long", "avro.java.string": "String"}], "default": null}
  ]}}], "default": null},
  {"name": "version", "type": ["int", "null"], "default": 1}
]};

const HoodieRollbackMetadata = {"type": "record", "name": "HoodieRollbackMetadata", "namespace": "org.apache.hudi.avro.model", "fields": [
  {"name": "startRollbackTime", "type": {"type": "string", "avro.java.string": "String"}},
  {"name": "timeTakenInMillis", "type": "long"},
  {"name": "totalFilesDeleted", "type": "int"},
  {"name": "commitsRollback", "type": {"type": "array", "items": {"type": "string", "avro.java.string": "String"}}},
  {"name": "partitionMetadata", "type": {"type": "map", "values": {"type": "record", "name": "HoodieRollbackPartitionMetadata", "fields": [
    {"name": "partitionPath", "type": {"type": "string", "avro.java.string": "String"}},
    {"name": "successDeleteFiles", "type": {"type": "array", "items": {"type": "string", "avro.java.string": "String"}}},
    {"name": "failedDeleteFiles", "type": {"type": "array", "items": {"type": "string", "avro.java.string": "String"}}},
    {"name": "rollbackLogFiles", "type": ["null", {"type": "map", "values": "long", "avro.java.string": "String"}], "default": null},
    {"name": "logFilesFromFailedCommit", "type": ["null", {"type": "map", "values": "long", "avro.java.string": "String"}], "default": null}
  ]}, "avro.java.string": "String"}},
  {"name": "version", "type": ["int", "null"], "default": 1},
  {"name": "instantsRollback", "type": {"type": "array", "items": {"type": "record", "name": "HoodieInstantInfo", "fields": [
    {"name": "commitTime", "type": {"type": "string", "avro.java.string": "String"}},
    {"name": "action", "type": {"type": "string", "avro.java.string": "String"}}
  ]}, "default": []}, "default": []}
]};

const HoodieIndexPlan = {"type": "record", "name": "HoodieIndexPlan", "namespace": "org.apache.hudi.avro.model", "fields": [
  {"name": "version", "type": ["int", "null"], "default": 1},
  {"name": "indexPartitionInfos", "type": ["null", {"type": "array", "items": {"type": "record", "name": "HoodieIndexPartitionInfo", "fields": [
    {"name": "version", "type": ["int", "null"], "default": 1},
    {"name": "metadataPartitionPath", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": null},
    {"name": "indexUptoInstant", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": null},
    {"name": "extraMetadata", "type": ["null", {"type": "map", "values": {"type": "string", "avro.java.string": "String"}, "avro.java.string": "String"}], "default": null}
  ]}}], "default": null}
]};

const HoodieIndexCommitMetadata = {"type": "record", "name": "HoodieIndexCommitMetadata", "namespace": "org.apache.hudi.avro.model", "fields": [
  {"name": "version", "type": ["int", "null"], "doc": "This field replaces the field filesToBeDeletedPerPartition", "default": 1},
  {"name": "operationType", "type": ["null", {"type": "string", "avro.java.string": "String"}], "doc": "This field replaces the field filesToBeDeletedPerPartition", "default": null},
  {"name": "indexPartitionInfos", "type": ["null", {"type": "array", "items": {"type": "record", "name": "HoodieIndexPartitionInfo", "fields": [
    {"name": "version", "type": ["int", "null"], "default": 1},
    {"name": "metadataPartitionPath", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": null},
    {"name": "indexUptoInstant", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": null},
    {"name": "extraMetadata", "type": ["null", {"type": "map", "values": {"type": "string", "avro.java.string": "String"}, "avro.java.string": "String"}], "default": null}
  ]}}], "doc": "This field contains the info for each partition that got indexed", "default": null}
]};

const HoodieCleanerPlan = {"type": "record", "name": "HoodieCleanerPlan", "namespace": "org.apache.hudi.avro.model", "fields": [
  {"name": "earliestInstantToRetain", "type": ["null", {"type": "record", "name": "HoodieActionInstant", "fields": [
    {"name": "timestamp", "type": {"type": "string", "avro.java.string": "String"}},
    {"name": "action", "type": {"type": "string", "avro.java.string": "String"}},
    {"name": "state", "type": {"type": "string", "avro.java.string": "String"}}
  ]}], "default": null},
  {"name": "lastCompletedCommitTimestamp", "type": {"type": "string", "avro.java.string": "String"}, "default": ""},
  {"name": "policy", "type": {"type": "string", "avro.java.string": "String"}},
  {"name": "filesToBeDeletedPerPartition", "type": ["null", {"type": "map", "values": {"type": "array", "items": {"type": "string", "avro.java.string": "String"}}, "avro.java.string": "String"}], "default": null},
  {"name": "version", "type": ["int", "null"], "default": 1},
  {"name": "filePathsToBeDeletedPerPartition", "type": ["null", {"type": "map", "values": {"type": "array", "items": {"type": "record", "name": "HoodieCleanFileInfo", "fields": [
    {"name": "filePath", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": null},
    {"name": "isBootstrapBaseFile", "type": ["null", "boolean"], "default": null}
  ]}}, "avro.java.string": "String"}], "doc": "This field replaces the field filesToBeDeletedPerPartition", "default": null},
  {"name": "partitionsToBeDeleted", "type": ["null", {"type": "array", "items": {"type": "string", "avro.java.string": "String"}}], "doc": "partitions to be deleted", "default": null},
  {"name": "extraMetadata", "type": ["null", {"type": "map", "values": {"type": "string", "avro.java.string": "String"}, "avro.java.string": "String"}], "default": null}
]};

const HoodieCleanMetadata = {"type": "record", "name": "HoodieCleanMetadata", "namespace": "org.apache.hudi.avro.model", "fields": [
  {"name": "startCleanTime", "type": {"type": "string", "avro.java.string": "String"}},
  {"name": "timeTakenInMillis", "type": "long"},
  {"name": "totalFilesDeleted", "type": "int"},
  {"name": "earliestCommitToRetain", "type": {"type": "string", "avro.java.string": "String"}},
  {"name": "lastCompletedCommitTimestamp", "type": {"type": "string", "avro.java.string": "String"}, "default": ""},
  {"name": "partitionMetadata", "type": {"type": "map", "values": {"type": "record", "name": "HoodieCleanPartitionMetadata", "fields": [
    {"name": "partitionPath", "type": {"type": "string", "avro.java.string": "String"}},
    {"name": "policy", "type": {"type": "string", "avro.java.string": "String"}},
    {"name": "deletePathPatterns", "type": {"type": "array", "items": {"type": "string", "avro.java.string": "String"}}},
    {"name": "successDeleteFiles", "type": {"type": "array", "items": {"type": "string", "avro.java.string": "String"}}},
    {"name": "failedDeleteFiles", "type": {"type": "array", "items": {"type": "string", "avro.java.string": "String"}}},
    {"name": "isPartitionDeleted", "type": ["null", "boolean"], "default": null}
  ]}, "avro.java.string": "String"}},
  {"name": "version", "type": ["int", "null"], "default": 1},
  {"name": "bootstrapPartitionMetadata", "type": ["null", {"type": "map", "values": "HoodieCleanPartitionMetadata", "avro.java.string": "String"}], "default": null},
  {"name": "extraMetadata", "type": ["null", {"type": "map", "values": {"type": "string", "avro.java.string": "String"}, "avro.java.string": "String"}], "default": null}
]};

const HoodieSavepointMetadata = {"type": "record", "name": "HoodieSavepointMetadata", "namespace": "org.apache.hudi.avro.model", "fields": [
  {"name": "savepointedBy", "type": {"type": "string", "avro.java.string": "String"}},
  {"name": "savepointedAt", "type": "long"},
  {"name": "comments", "type": {"type": "string", "avro.java.string": "String"}},
  {"name": "partitionMetadata", "type": {"type": "map", "values": {"type": "record", "name": "HoodieSavepointPartitionMetadata", "fields": [
    {"name": "partitionPath", "type": {"type": "string", "avro.java.string": "String"}},
    {"name": "savepointDataFile", "type": {"type": "array", "items": {"type": "string", "avro.java.string": "String"}}}
  ]}, "avro.java.string": "String"}},
  {"name": "version", "type": ["int", "null"], "default": 1}
]};

const HoodieRestorePlan = {"type": "record", "name": "HoodieRestorePlan", "namespace": "org.apache.hudi.avro.model", "fields": [
  {"name": "instantsToRollback", "type": {"type": "array", "items": {"type": "record", "name": "HoodieInstantInfo", "fields": [
    {"name": "commitTime", "type": {"type": "string", "avro.java.string": "String"}},
    {"name": "action", "type": {"type": "string", "avro.java.string": "String"}}
  ]}}, "default": []},
  {"name": "version", "type": ["int", "null"], "default": 1},
  // Hudi's avsc declares ["string", "null"] with default null, which the Avro spec (and avsc) rejects
  // (Java Avro accepts it); null first is the same field for every reader (unions resolve by type)
  {"name": "savepointToRestoreTimestamp", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": null}
]};

const HoodieLSMTimelineInstant = {"type": "record", "name": "HoodieLSMTimelineInstant", "namespace": "org.apache.hudi.avro.model", "fields": [
  {"name": "instantTime", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": null},
  {"name": "completionTime", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": null},
  {"name": "action", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": null},
  {"name": "metadata", "type": ["null", "bytes"], "default": null},
  {"name": "plan", "type": ["null", "bytes"], "default": null},
  {"name": "version", "type": "int", "default": 1}
]};

const HoodieDeleteRecordList = {"type": "record", "name": "HoodieDeleteRecordList", "namespace": "org.apache.hudi.avro.model", "fields": [
  {"name": "deleteRecordList", "type": {"type": "array", "items": {"type": "record", "name": "HoodieDeleteRecord", "fields": [
    {"name": "recordKey", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": null},
    {"name": "partitionPath", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": null},
    {"name": "orderingVal", "type": ["null", {"type": "record", "name": "BooleanWrapper", "namespace": "org.apache.hudi.avro.model", "fields": [
      {"name": "value", "type": "boolean"}
    ]}, {"type": "record", "name": "IntWrapper", "namespace": "org.apache.hudi.avro.model", "fields": [
      {"name": "value", "type": "int"}
    ]}, {"type": "record", "name": "LongWrapper", "namespace": "org.apache.hudi.avro.model", "fields": [
      {"name": "value", "type": "long"}
    ]}, {"type": "record", "name": "FloatWrapper", "namespace": "org.apache.hudi.avro.model", "fields": [
      {"name": "value", "type": "float"}
    ]}, {"type": "record", "name": "DoubleWrapper", "namespace": "org.apache.hudi.avro.model", "fields": [
      {"name": "value", "type": "double"}
    ]}, {"type": "record", "name": "BytesWrapper", "namespace": "org.apache.hudi.avro.model", "fields": [
      {"name": "value", "type": "bytes"}
    ]}, {"type": "record", "name": "StringWrapper", "namespace": "org.apache.hudi.avro.model", "fields": [
      {"name": "value", "type": {"type": "string", "avro.java.string": "String"}}
    ]}, {"type": "record", "name": "DateWrapper", "namespace": "org.apache.hudi.avro.model", "fields": [
      {"name": "value", "type": "int"}
    ]}, {"type": "record", "name": "DecimalWrapper", "namespace": "org.apache.hudi.avro.model", "fields": [
      {"name": "value", "type": {"type": "bytes", "logicalType": "decimal", "precision": 30, "scale": 15}}
    ]}, {"type": "record", "name": "TimeMicrosWrapper", "namespace": "org.apache.hudi.avro.model", "fields": [
      {"name": "value", "type": {"type": "long", "logicalType": "time-micros"}}
    ]}, {"type": "record", "name": "TimestampMicrosWrapper", "namespace": "org.apache.hudi.avro.model", "fields": [
      {"name": "value", "type": "long"}
    ]}], "default": null}
  ]}}}
]};

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Second and later definitions of a named type become name references, as Avro requires. */
function dedupeNamed(schema: unknown, seen = new Set<string>()): Json {
  if (Array.isArray(schema)) return schema.map((s) => dedupeNamed(s, seen));
  if (schema !== null && typeof schema === 'object') {
    const o = schema as Record<string, unknown>;
    if (o.type === 'record' || o.type === 'enum' || o.type === 'fixed') {
      const name = String(o.name);
      if (seen.has(name)) return name;
      seen.add(name);
    }
    const out: Record<string, Json> = {};
    for (const [k, v] of Object.entries(o)) {
      out[k] = k === 'type' || k === 'items' || k === 'values' || k === 'fields' ? dedupeNamed(v, seen) : (v as Json);
    }
    return out;
  }
  return schema as Json;
}

const S = { type: 'string', 'avro.java.string': 'String' };
const nullable = (name: string, type: unknown) => ({ name, type: ['null', type], default: null });
const NS = 'org.apache.hudi.avro.model';

function buildRestoreMetadata(): Json {
  return dedupeNamed({
    type: 'record', name: 'HoodieRestoreMetadata', namespace: NS, fields: [
      { name: 'startRestoreTime', type: S },
      { name: 'timeTakenInMillis', type: 'long' },
      { name: 'instantsToRollback', type: { type: 'array', items: S } },
      { name: 'hoodieRestoreMetadata', type: { type: 'map', values: { type: 'array', items: ['null', HoodieRollbackMetadata] }, 'avro.java.string': 'String' } },
      { name: 'version', type: ['int', 'null'], default: 1 },
      { name: 'restoreInstantInfo', type: { type: 'array', items: 'HoodieInstantInfo' }, default: [] },
      nullable('extraMetadata', { type: 'map', values: S, 'avro.java.string': 'String' }),
    ],
  });
}

const HoodieCompactionMetadata = {
  type: 'record', name: 'HoodieCompactionMetadata', fields: [
    { name: 'partitionToCompactionWriteStats', type: ['null', { type: 'map', values: { type: 'array', items: {
      type: 'record', name: 'HoodieCompactionWriteStat', fields: [
        { name: 'partitionPath', type: ['null', S] },
        { name: 'totalLogRecords', type: ['null', 'long'] },
        { name: 'totalLogFiles', type: ['null', 'long'] },
        { name: 'totalUpdatedRecordsCompacted', type: ['null', 'long'] },
        { name: 'hoodieWriteStat', type: ['null', 'HoodieWriteStat'] },
      ] } }, 'avro.java.string': 'String' }] },
  ],
};

function buildArchivedMetaEntry(): Json {
  return dedupeNamed({
    type: 'record', name: 'HoodieArchivedMetaEntry', namespace: NS, fields: [
      nullable('hoodieCommitMetadata', HoodieCommitMetadata),
      nullable('hoodieCleanMetadata', HoodieCleanMetadata),
      nullable('hoodieCompactionMetadata', HoodieCompactionMetadata),
      nullable('hoodieRollbackMetadata', HoodieRollbackMetadata),
      nullable('hoodieSavePointMetadata', HoodieSavepointMetadata),
      nullable('commitTime', S),
      nullable('actionType', S),
      { name: 'version', type: ['int', 'null'], default: 1 },
      nullable('hoodieCompactionPlan', HoodieCompactionPlan),
      nullable('hoodieCleanerPlan', HoodieCleanerPlan),
      nullable('actionState', S),
      nullable('hoodieReplaceCommitMetadata', HoodieReplaceCommitMetadata),
      nullable('hoodieRequestedReplaceMetadata', HoodieRequestedReplaceMetadata),
      nullable('HoodieInflightReplaceMetadata', 'HoodieCommitMetadata'),
      nullable('hoodieIndexCommitMetadata', HoodieIndexCommitMetadata),
      nullable('stateTransitionTime', S),
    ],
  });
}

export const SCHEMA_NAMES = [
  'HoodieCommitMetadata', 'HoodieReplaceCommitMetadata', 'HoodieCompactionPlan', 'HoodieRequestedReplaceMetadata',
  'HoodieRollbackPlan', 'HoodieRollbackMetadata', 'HoodieIndexPlan', 'HoodieIndexCommitMetadata', 'HoodieCleanerPlan',
  'HoodieCleanMetadata', 'HoodieSavepointMetadata', 'HoodieRestorePlan', 'HoodieRestoreMetadata',
  'HoodieLSMTimelineInstant', 'HoodieDeleteRecordList', 'HoodieArchivedMetaEntry',
] as const;
export type SchemaName = (typeof SCHEMA_NAMES)[number];

let restoreMeta: Json | undefined;
let archivedEntry: Json | undefined;

/** Schema constants by record name. The two composite schemas are assembled on first access. */
export const SCHEMAS: Readonly<Record<SchemaName, object>> = Object.freeze({
  HoodieCommitMetadata, HoodieReplaceCommitMetadata, HoodieCompactionPlan, HoodieRequestedReplaceMetadata,
  HoodieRollbackPlan, HoodieRollbackMetadata, HoodieIndexPlan, HoodieIndexCommitMetadata, HoodieCleanerPlan,
  HoodieCleanMetadata, HoodieSavepointMetadata, HoodieRestorePlan, HoodieLSMTimelineInstant, HoodieDeleteRecordList,
  get HoodieRestoreMetadata(): object {
    return (restoreMeta ??= buildRestoreMetadata()) as object;
  },
  get HoodieArchivedMetaEntry(): object {
    return (archivedEntry ??= buildArchivedMetaEntry()) as object;
  },
});
