"""Target types: a task points at its spec, its lockfile and its image; an image at its recipe and pin."""

from pants.engine.target import (
    COMMON_TARGET_FIELDS,
    MultipleSourcesField,
    SingleSourceField,
    StringField,
    Target,
)


class TaskSpecField(SingleSourceField):
    alias = "spec"
    expected_file_extensions = (".json",)
    help = "The task's spec file (tasks/<group>/<task_id>.json)."


class TaskLockfileField(StringField):
    alias = "lockfile"
    required = True
    help = "Repo-relative path of the task's hash-pinned lock (lockfiles/tasks/...)."


class TaskImageField(StringField):
    alias = "image"
    required = True
    help = "Name of the image the task is certified and scored on (a bench_image under images/<name>)."


class TaskDataField(MultipleSourcesField):
    alias = "data"
    default = ()
    help = "Files the task carries in this repo (a synthetic task's SPEC.md, initial/, reference/, tests/)."


class BenchTaskTarget(Target):
    alias = "bench_task"
    core_fields = (*COMMON_TARGET_FIELDS, TaskSpecField, TaskLockfileField, TaskImageField, TaskDataField)
    help = "A benchmark task. `./pants certify` caches its certificate by the content of these inputs."


class ImageSourcesField(MultipleSourcesField):
    default = ("recipe.json", "digest", "manifest.txt")
    help = "The image's recipe, pinned digest and package manifest."


class BenchImageTarget(Target):
    alias = "bench_image"
    core_fields = (*COMMON_TARGET_FIELDS, ImageSourcesField)
    help = "A scoring image: an mmdebstrap recipe and its pinned rootfs digest."
