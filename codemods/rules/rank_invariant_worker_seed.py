"""WS104 rank-invariant-worker-seed."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..analysis.data_parallel import Evidence, distributed_evidence, intends_shared_seeds
from ..analysis.distributed_runs import (
    built_on_rank_zero_only,
    exclusive_runs,
    job_of,
    joins_job,
    loader_runs,
    never_runs,
    separate_commands,
)
from ..analysis.distributed_workers import zeroed_when_distributed
from ..analysis.lightning_loaders import seeded_by_lightning
from ..analysis.loader_randomness import DRAWS_BY_RNG, LoaderRandomness, loader_randomness
from ..analysis.loaders import LoaderCall, loader_calls
from ..analysis.ranks import (
    WORKER_SEEDED_RNGS,
    RankDependence,
    TorchSeeding,
    generator_seeding,
    mentions_worker_seeding,
    rngs_reseeded_per_rank,
    torch_seedings,
    worker_rank_source,
)
from ..analysis.refs import FunctionRef
from ..analysis.runs import entry_modules
from ..analysis.seed_descriptions import name_torch_seedings
from ..analysis.seeding_reach import seeding_carries_to
from ..analysis.worker_inits import seed_left_none, worker_init
from ..fixes.rank_seed import call_in_worker_init, may_add_keyword, pass_rank_worker_init
from ..rule import FixAvailability, FixSafety, Rule
from ..types import Fix, Location, Safety, TorchTarget


class RankInvariantWorkerSeed(Rule):
    """Flags DataLoaders whose workers draw the same random numbers on every distributed rank.

    ## What it does
    Checks for data-parallel projects (`torch.distributed.init_process_group`,
    `DistributedDataParallel`, `DistributedSampler`, the launchers' `RANK` / `LOCAL_RANK`
    environment, a Lightning `Trainer` on several devices or every visible GPU, Accelerate,
    DeepSpeed) that seed torch with the same value on every rank (`torch.manual_seed(args.seed)`,
    a project helper such as `set_seed(cfg.seed)`, `seed_everything(seed)`), for DataLoaders
    that may start workers whose seed does not depend on the rank: no `worker_init_fn` that
    reads it, no `generator=` seeded per rank.

    Such a loader is reported whether or not its items are random today: an `error` when its
    Dataset's per-item code draws, a `warning` when it draws nothing visible (the worker
    seeds are alike, but nothing repeats until a random transform is added).

    The message names the call that seeds torch (inside a helper, with the call that runs
    it) and, when several training scripts build the loader, each of their seedings.

    ## Why it matters
    Each DataLoader iterator draws its workers' `base_seed` from the rank's own torch RNG,
    and worker *k* is seeded with `base_seed + k`. When every rank called
    `torch.manual_seed` with the same value, every rank draws the same `base_seed`: worker
    *k* of every rank applies the same random crops, flips, masks and noise, each to its own
    samples. Measured with two ranks on torch 2.13, 16 of 16 draws of NumPy, `random` and
    torch were identical across the ranks. With 8 or 1,000 GPUs the augmentation diversity
    of a global batch shrinks by that factor, silently.

    Not reported: seeds that add the rank (`args.seed + get_rank()`, `cfg.seed + local_rank`),
    Lightning's `seed_everything(seed, workers=True)` for the loaders a Trainer is handed
    (it gives them its per-rank `worker_init_fn`; a loader iterated by hand gets none; a
    Trainer and a data module Hydra makes, `hydra.utils.instantiate(cfg.trainer)`, count
    when the config nodes' `_target_`s name them),
    Accelerate's `set_seed(seed, device_specific=True)`, a `worker_init_fn` that reads the rank, no
    seeding at all (each rank then starts from its own entropy), a loader with
    `num_workers=0` whose per-item code draws nothing, a loader that only global rank 0
    builds (`if self.global_rank == 0:` around it, or around every call that leads to it;
    not `local_rank`, which is 0 on every node), and a process group of one process
    (`init_process_group(..., world_size=1)`).

    A `generator=` is seeded where the loader's function seeds it, or, for a generator held
    in `self.<attr>`, where any method of its class does (a DataModule's `__init__`).

    In a project with tensor- or pipeline-parallel RNG trackers (Megatron's
    `model_parallel_cuda_manual_seed`), the ranks of one model-parallel group must draw
    alike, since they share their batches: the global rank must not be mixed in, only the
    data-parallel rank. Such findings ask for that and have no fix.

    ## Example
    ```python
    import torch.distributed as dist
    from torch.utils.data import DistributedSampler

    class Crops(Dataset):
        def __getitem__(self, index):
            return torch.rand(3)

    def main(args):
        dist.init_process_group("nccl")
        torch.manual_seed(args.seed)
        train_set = Crops()
        sampler = DistributedSampler(train_set)
        loader = DataLoader(train_set, sampler=sampler, num_workers=8)
        for batch in loader:
            ...
    ```

    Use instead:
    ```python
    def seed_worker_per_rank(worker_id: int) -> None:
        if torch.distributed.is_available() and torch.distributed.is_initialized():
            rank = torch.distributed.get_rank()
        else:
            rank = int(os.environ.get("RANK", 0))
        state = np.random.SeedSequence([torch.initial_seed(), rank]).generate_state(2)
        worker_seed = (int(state[0]) << 32) | int(state[1])
        torch.manual_seed(worker_seed)
        random.seed(worker_seed)
        np.random.seed(int(state[0]))

    loader = DataLoader(train_set, sampler=sampler, num_workers=8,
                        worker_init_fn=seed_worker_per_rank)
    ```

    ## Fix
    Mixes the global rank into the worker seed, not into the training seed: inserts a
    module-level `seed_worker_per_rank` (once per module) and passes it as
    `worker_init_fn=`, or, when the loader already passes a function defined in the
    project, calls it first thing in that function, so the function's own use of
    `torch.initial_seed()` follows. The helper reseeds torch, `random` and NumPy from
    `torch.initial_seed()` (different per worker and epoch, reproducible under
    `torch.manual_seed`) and the rank (`torch.distributed` when initialised, else the `RANK`
    variable launchers set). Model initialisation, dropout and everything outside the
    workers draw what they drew before. A loader with `num_workers=0` draws in the main
    process, where no worker seed is involved: every rank still draws the same numbers
    there, which is reported as information, without a fix (any reseeding there would
    change the model's random numbers too) and without failing the run.

    ## Fix safety
    Safe when every dataset the loader may get is a known map-style Dataset and the edited
    `worker_init_fn` is not also called elsewhere; unsafe otherwise. In a worker of a
    map-style Dataset the RNGs only decide per-item randomness: the sampler, which decides
    what each rank loads, runs in the main process. An IterableDataset (or a dataset the
    analysis cannot see) may shuffle its shards in the worker with a seed shared by all
    ranks on purpose, and split them by rank afterwards; the fix would break that split.

    ## Known limitations
    - The distributed evidence, the seeding and the loader count together when they belong
      to one run: the same file, or files whose functions call theirs (a few levels up,
      through plain function calls, `self.<method>()` calls of classes one object may be
      an instance of, including mixins composed with `type(name, bases, {})`, method calls
      on an object the caller makes, the `__init__` that making an object runs (and the
      base `__init__` a subclass hands on to with `super().__init__(...)`),
      `trainer_class(cfg).fit()` with the class looked up by
      name in a project module or package (`getattr(trainers, cfg.name)`), calls of an
      entry picked from a module-level table of functions, `LOADERS[kind]["train"](args)`,
      and a method called on an object of no class the analysis knows when only one family
      of project classes (a base that defines the method and the classes deriving from it)
      defines a method of that name (`self.exp.get_data_loader()` on an experiment a
      trainer loads from a file named on its command line);
      every class or entry the run may pick is a candidate; distributed evidence in such a
      method, like a model class that wraps itself in DDP when its options ask, does not
      make each script that makes one distributed). The loader hooks Lightning calls
      (`train_dataloader()` of a `LightningDataModule` or `LightningModule`) belong to the
      runs of the functions that make the instance. Other code reached only through
      registries or callbacks a library calls is not linked, and then nothing is reported.
      Module-level seeding counts for the runs of its own file. A seeding in a function
      that hands the loader's function to a launcher (`mp.spawn(train, ...)`) and
      otherwise calls it only with rank 0 does not count:
      spawned ranks start from their own RNG state. One that calls it otherwise with
      another rank (`main_worker(args.gpu, ...)`, the PyTorch ImageNet example's layout)
      counts: the script may be started once per rank (torchrun, one process per node),
      each rank running the seeding. A function `mp.spawn` starts takes part in the run
      of the script that spawns it, with the arguments its `args=` tuple gives; that
      script's top-level seeding outside any `if` (not under `if __name__ ==
      "__main__":`) counts, since each spawned rank imports the script again and runs it.
    - A loader built in a script's function that nothing runs (no code calls, passes or
      stores it) takes part in no job and is not reported.
    - A read of the rank environment with a fallback (`os.environ.get("RANK", 0)`) shows a
      distributed run only in the script that reads it: code written to run alone as well,
      such as a helper that reads the rank for its logs, says nothing about the scripts
      that call it. A read without a fallback (`os.environ["LOCAL_RANK"]`) counts for every
      run that reaches it.
    - A `DistributedSampler` given `num_replicas` does not show a distributed run by itself
      (single-process scripts pass `num_replicas=1`); a process group, a DDP wrapper, a
      launcher's rank variable or a `DistributedSampler` that asks the process group does.
    - A seed is known to be the same on every rank when it is a constant, a module constant
      or a command-line value (`args.seed` of an `argparse` parser). A setting read from a
      configuration the analysis cannot follow (`cfg.manual_seed` from a YAML file,
      `config["seed"]`, `cfg.seed + 1031 * epoch`) is assumed the same on every rank, unless
      the project stores a rank-dependent value under that name (`cfg.seed = cfg.seed +
      rank`); such findings are warnings and name the setting they assume. So is a seed
      that falls back to a draw of each process when the setting is unset (`seed =
      opt["manual_seed"]`, then `if seed is None: seed = random.randint(1, 10000)`): the run
      the configuration seeds is reported, and the message names the fallback, which
      differs per rank. A seed that mixes in the rank on any of its paths (`seed +
      opt["rank"]`) is not. Any other seed the analysis cannot see through is given the
      benefit of the doubt.
    - Without a visible draw in the Dataset's per-item code, a shuffling loader whose
      per-item code cannot be fully seen (a torchvision dataset, a `self.transform` passed
      in) is assumed to augment at random: such findings are warnings.
    - A loader whose per-item code draws nothing visible, and that is not assumed to
      augment (its code is fully visible, or it does not shuffle), is still reported when
      it may start workers: its worker seeds are the same on every rank, but no random
      numbers repeat until a random transform is added; the warning says which. A
      torchvision dataset given only transforms that draw nothing (`Compose([ToTensor(),
      Normalize(...)])`) counts as fully visible.
    - A loader whose `worker_init_fn` or `generator` only a `**kwargs` of unknown contents
      (options read from a file) may pass is reported as a warning that says so, without a
      fix, when the project spells neither anywhere.
    - A Lightning `Trainer` counts only when `devices`, `gpus`, `num_nodes`, `strategy`
      (or the older `distributed_backend` / `accelerator`) literally ask for several
      processes, or a dict of options given to `Trainer.from_argparse_args` sets a DDP
      strategy.
    - A Trainer Hydra makes from a config node (`hydra.utils.instantiate(cfg.trainer)`)
      counts when the node's target is Lightning's `Trainer` (its `_target_`, that of a
      file its `defaults` list names, or that of the structured config dataclass the project
      keeps under the node's name) and one of the project's YAML files gives the node those
      options: under a `trainer:` key, or as a file of the `trainer` config group (or is
      given `strategy=instantiate(cfg.strategy)`, a node whose `_target_` is `DDPStrategy`
      or another data-parallel strategy). It counts only in runs that a `@hydra.main` entry
      point starts (code that passes a config built in Python reads no file), and since
      Hydra chooses a run's files on its command line, such findings are warnings that name
      the files assumed.
    - Outside Hydra, a call given a config node (`object_from_dict(config.trainer)`) whose
      result the function runs `fit` (or `test`...) on counts when a project YAML file's
      top-level node of that name names Lightning's Trainer as its `type` (or `class_path`)
      and asks for several processes; the finding is a warning that names those files.
    - A loader whose `num_workers` is 0 wherever the job is distributed starts no workers
      there: the `if` arm that gives it a `DistributedSampler` also sets the variable it
      passes as `num_workers` to 0 (the other arm, which loads without the sampler, is taken
      to be the single-process run), or the block that makes the process group
      (`init_process_group(...)`, then `opt.workers = 0`) stores 0 in the setting it reads
      before it is built, and no other code of the run starts the job. Its draws in the
      main process are noted as information, as for `num_workers=0`.
    - In workers started with spawn or forkserver, `torch.distributed` is not initialised:
      the rank comes from `RANK`, which `torchrun`, Lightning, Accelerate and DeepSpeed set
      but a bare `torch.multiprocessing.spawn` launch does not.
    - A `worker_init_fn` defined outside the project, or a lambda, is not edited.
    - A `worker_init_fn` chosen by a seed (`partial(seed_fn, rank=rank, seed=seed) if seed
      is not None else None`, OpenMMLab's `build_dataloader`) is reported, without a fix or
      a named draw, when a call of the builder leaves the seed None (a validation loader).
    - `worker_init_fn=make_init(dataset)`, the call of a project function that returns None on
      every path, passes no worker_init_fn; the finding has no fix, because the call is not
      removed.

    ## References
    - [PyTorch docs: Randomness in multi-process data loading](https://pytorch.org/docs/stable/data.html#randomness-in-multi-process-data-loading)
    - [PyTorch DataLoader source: `_BaseDataLoaderIter` draws `_base_seed` from the rank's RNG](https://github.com/pytorch/pytorch/blob/main/torch/utils/data/dataloader.py)
    - [Lightning: `seed_everything(workers=True)`](https://lightning.ai/docs/pytorch/stable/common/trainer.html#reproducibility)
    """

    CODE = "WS104"
    NAME = "rank-invariant-worker-seed"
    FIX = FixAvailability.SOMETIMES
    FIX_SAFETY = FixSafety.SOMETIMES_UNSAFE

    @classmethod
    def prefetch(cls, target: TorchTarget) -> tuple[bytes, ...]:
        del target
        return (b"DataLoader", b"manual_seed")

    def check(self) -> None:
        project = self.project
        loaders = list(loader_calls(project))
        # Seeding inside a worker_init_fn happens in the workers, not on each rank's start.
        in_workers = {worker_init(loader).function for loader in loaders}
        seedings = [
            seeding for seeding in torch_seedings(project) if seeding.function not in in_workers
        ]
        if not seedings and all(loader.argument("generator").value is None for loader in loaders):
            return
        # Megatron-style RNG trackers: the ranks of a model-parallel group must draw alike.
        self._tracker = intends_shared_seeds(project)
        evidence = distributed_evidence(project)
        if not evidence:
            return
        for loader in loaders:
            rank = worker_rank_source(project, loader)
            # A worker_init_fn or generator only a `**kwargs` may pass is not seen: report
            # what is known, as a warning that says so, without a fix.
            unseen = (
                rank is RankDependence.UNKNOWN
                and worker_rank_source(project, loader, unseen_as_absent=True)
                is RankDependence.SAME
                and not mentions_worker_seeding(project)
            )
            partly = self._partly_reseeded(loader) if rank is RankDependence.PER_RANK else None
            if rank is not RankDependence.SAME and not unseen and partly is None:
                continue
            if built_on_rank_zero_only(project, loader):
                continue  # no other rank has workers that could repeat its draws
            if never_runs(project, loader.function):
                continue  # a script's function that nothing runs takes part in no job
            entries = loader_runs(project, loader)
            if not joins_job(project, None, entries, evidence):
                continue  # no run that builds the loader is known to be distributed
            related = [
                seeding
                for seeding in seedings
                if entry_modules(project, seeding.function) & entries
                and not separate_commands(project, seeding.function, loader.function)
                and seeding_carries_to(
                    project, seeding.function, loader.function, seeding.call.span
                )
            ]
            # `seed_everything(..., workers=True)` helps only a loader a Trainer is handed.
            if any(
                seeding.rank is RankDependence.PER_RANK
                and not exclusive_runs(project, seeding.function, loader.function)
                for seeding in related
            ) or (seeded_by_lightning(project, loader) is not None):
                continue
            # A seeding counts where it takes part in a distributed run that builds this
            # loader: the seeding, the loader and the evidence share one run.
            jobs = [
                (seeding, job)
                for seeding in related
                if seeding.rank is RankDependence.SAME
                for job in [
                    job_of(
                        project, loader, entries, entry_modules(project, seeding.function), evidence
                    )
                ]
                if job is not None
            ]
            seeded_by = self._seeding_of(loader, entries, jobs, evidence)
            if seeded_by is None:
                continue
            # Code that sets num_workers to 0 where the job is distributed starts no workers
            # on any rank: what is left is the main process's draws.
            zeroed = zeroed_when_distributed(project, loader, entries, evidence)
            if zeroed is not None:
                self._report_main_process(
                    loader, seeded_by, loader_randomness(project, loader), zeroed
                )
            elif partly is not None:
                self._report(loader, seeded_by, partly[0], reseeded=partly[1])
            else:
                self._report(loader, seeded_by, loader_randomness(project, loader), unseen)

    def _partly_reseeded(
        self, loader: LoaderCall
    ) -> tuple[LoaderRandomness, frozenset[str]] | None:
        """For a worker_init_fn that reseeds only some RNGs per rank: a per-item draw of the
        loader from another RNG torch seeds in its workers (alike on every rank), and the RNGs
        it reseeds."""
        reseeded = rngs_reseeded_per_rank(self.project, loader)
        if reseeded is None:
            return None
        alike = [DRAWS_BY_RNG[name] for name in self._worker_rngs() if name not in reseeded]
        if not alike:
            return None
        randomness = loader_randomness(self.project, loader, frozenset().union(*alike))
        # Per-item code that draws only from what the function reseeds repeats nothing.
        seen = randomness.draw is not None or randomness.opaque
        return (randomness, reseeded) if seen else None

    def _seeding_of(
        self,
        loader: LoaderCall,
        entries: frozenset[Path],
        jobs: list[tuple[TorchSeeding, Evidence]],
        evidence: list[Evidence],
    ) -> SeededAlike | None:
        """Describe what seeds the loader's workers alike on every rank, if anything does."""
        if loader.argument("generator").value is not None:
            seeding = generator_seeding(self.project, loader)
            if seeding is None or seeding.call.span is None:
                return None
            job = job_of(self.project, loader, entries, entries, evidence)
            if job is None:
                return None
            where = self._at(seeding.function, seeding.call.span.line)
            text = f"its `generator` is seeded alike on every rank (`.manual_seed(...)`, {where})"
            return SeededAlike(
                text,
                job,
                assumed=seeding.assumed_setting is not None,
                places=(Location(seeding.function.path, seeding.call.span),),
            )
        if not jobs:
            return None
        # The seedings in the loader's own file first, then those in a file that itself
        # starts or joins the job (a script that seeds, then wraps its model in DDP), then
        # in project order.
        jobs.sort(
            key=lambda pair: (
                pair[0].function.path != loader.module.path,
                not joins_job(self.project, pair[0].function.path, entries, evidence),
            )
        )
        named = name_torch_seedings([seeding for seeding, _ in jobs], self._at)
        shown = named[:_MAX_NAMED]
        if len(named) > _MAX_NAMED:
            shown.append(f"and {len(named) - _MAX_NAMED} more")
        text = f"every rank seeds torch alike ({'; '.join(shown)})"
        assumed = all(seeding.assumed_setting is not None for seeding, _ in jobs)
        places = dict.fromkeys(place for seeding, _ in jobs for place in seeding.places)
        return SeededAlike(text, jobs[0][1], assumed=assumed, places=tuple(places))

    def _report(
        self,
        loader: LoaderCall,
        seeded_by: SeededAlike,
        randomness: LoaderRandomness,
        unseen: bool = False,
        reseeded: frozenset[str] = frozenset(),
    ) -> None:
        span = loader.call.span
        assert span is not None
        job = self._job(seeded_by)
        # Only the calls that leave the builder's seed None repeat: what they load is not
        # told apart from what the other calls load, so no draw is named.
        left = seed_left_none(self.project, loader)
        certain = randomness.draw is not None and not (
            seeded_by.assumed
            or seeded_by.job.config_files
            or seeded_by.job.rests_on_the_machine
            or unseen
            or left
        )
        severity = "error" if certain else "warning"
        shared = self._model_parallel_groups()
        if not loader.may_start_workers():
            self._report_main_process(loader, seeded_by, randomness)
            return
        if left is not None:
            outcome = (
                f"the calls of `{loader.function.function.name}` that leave `{left}` None give "
                f"it no worker_init_fn: their workers' seeds ({self._seeded_rngs()}) are the "
                "same on every rank"
            )
        elif reseeded:
            init = worker_init(loader).function
            assert init is not None
            alike = [name for name in self._worker_rngs() if name not in reseeded]
            outcome = (
                f"its worker_init_fn `{init.function.name}` tells ranks apart only for "
                f"{_rng_names(reseeded)}: the seeds of {_rng_names(alike)} in worker k of this "
                "DataLoader are the same on every rank"
            ) + (
                f", and it draws from them ({self._draws(randomness)})"
                if randomness.draw is not None
                else " (per-item code not visible here may draw from them)"
            )
        elif randomness.random:
            outcome = (
                "worker k of this DataLoader draws the same random numbers on every rank "
                f"({self._draws(randomness)})"
            )
        else:
            # The worker seeds are alike all the same: a bug that waits for a random transform.
            outcome = (
                f"the worker seeds of this DataLoader ({self._seeded_rngs()}) are the same on "
                "every rank, but "
            ) + (
                "no per-item draw is visible and it does not shuffle: nothing is known to "
                "repeat, and any random transform its dataset applies would draw the same "
                "numbers on every rank"
                if randomness.opaque
                else "no per-item code draws today: nothing repeats yet, and any random "
                "transform added later would draw the same numbers on every rank"
            )
        message = f"{seeded_by.text} in a distributed job ({job}), so {outcome}; "
        if shared:
            message += f"mix the data-parallel rank into the worker seed{shared}"
            message += "; not fixed here"
            self.report(loader.function, span, message, severity=severity, related=seeded_by.places)
            return
        message += "mix the rank into the worker seed"
        if unseen:
            message += (
                "; a worker_init_fn or generator its **kwargs may pass is not seen here (it "
                "may mix in the rank), so it cannot be fixed here"
            )
        fix = None if unseen else self._fix(loader, randomness)
        self.report(
            loader.function, span, message, fix=fix, severity=severity, related=seeded_by.places
        )

    def _report_main_process(
        self,
        loader: LoaderCall,
        seeded_by: SeededAlike,
        randomness: LoaderRandomness,
        zeroed: Location | None = None,
    ) -> None:
        """Note, as information, the draws a loader that starts no workers in the job makes
        in the main process of every rank (`zeroed`: where the job sets its num_workers to
        0, when it may start workers in other runs)."""
        if randomness.draw is None:
            return
        span = loader.call.span
        assert span is not None
        job = self._job(seeded_by)
        shared = self._model_parallel_groups()
        draws = self._draws(randomness)
        advice = (
            f"seed each data-parallel rank differently{shared}"
            if shared
            else "seed each rank differently, e.g. add the rank to the seed"
        )
        whose = (
            ""
            if zeroed is None
            else ", whose num_workers is 0 where the job is distributed "
            f"({self.location(zeroed.path, zeroed.span.line)}),"
        )
        message = (
            f"{seeded_by.text} in a distributed job ({job}), and this DataLoader{whose} draws in "
            f"the main process ({draws}): every rank draws the same random numbers; {advice}"
        )
        related = seeded_by.places if zeroed is None else (*seeded_by.places, zeroed)
        self.report(loader.function, span, message, severity="info", related=related)

    def _job(self, seeded_by: SeededAlike) -> str:
        """Name the evidence that the job is distributed, as messages do."""
        evidence = seeded_by.job
        assert evidence.value.span is not None
        job = f"`{evidence.label}`, {self._at(evidence.function, evidence.value.span.line)}"
        if evidence.config_files:
            job += (
                f", asking for several processes in {self._files(evidence.config_files)}, "
                "assumed to be a configuration the run is given"
            )
        if evidence.rests_on_the_machine:
            job += ", a process per GPU on a machine with several"
        return job

    def _model_parallel_groups(self) -> str:
        """Say why only the data-parallel rank will do, in a project with Megatron-style RNG
        trackers; "" in any other."""
        tracker = self._tracker
        if tracker is None or tracker.value.span is None:
            return ""
        where = self._at(tracker.function, tracker.value.span.line)
        return (
            f" (not the global rank: the ranks of a model-parallel group, seeded by "
            f"`{tracker.label}`, {where}, must draw alike)"
        )

    def _seeded_rngs(self) -> str:
        """Name the RNGs torch seeds in each worker from its seed, on the target torch."""
        return _rng_names(self._worker_rngs())

    def _worker_rngs(self) -> tuple[str, ...]:
        """Return the global RNGs torch seeds in each worker from its seed, on the target."""
        before_numpy = self.project.target.is_before((1, 9))
        return WORKER_SEEDED_RNGS[:2] if before_numpy else WORKER_SEEDED_RNGS

    def _draws(self, randomness: LoaderRandomness) -> str:
        draw = randomness.draw
        if draw is None:
            return "it shuffles; assuming its dataset augments at random"
        line = draw.call.span.line if draw.call.span else 0
        name = draw.qualname.replace("numpy.", "np.", 1)
        where = self._at(draw.function, line)
        return f"`{draw.reached.chain[0]}`{randomness.applied} draws from `{name}`, {where}"

    def _fix(self, loader: LoaderCall, randomness: LoaderRandomness) -> Fix | None:
        if not may_add_keyword(loader):
            return None
        safe = randomness.map_style_only
        init = worker_init(loader)
        if init.is_absent:
            return pass_rank_worker_init(self.project, loader, _safety(safe))
        if init.function is None:
            return None
        if self.project.callers(init.function):
            safe = False  # also called in the main process, where the reseed would land too
        return call_in_worker_init(self.project, init, _safety(safe))

    def _files(self, paths: tuple[Path, ...]) -> str:
        """Name configuration files, the first few of them, as `a.yaml or b.yaml`."""
        shown = [self.project.shown_path(path) for path in paths[:_MAX_NAMED]]
        if len(paths) > _MAX_NAMED:
            shown.append(f"{len(paths) - _MAX_NAMED} more")
        return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"

    def _at(self, function: FunctionRef, line: int) -> str:
        return self.location(function.path, line)


#: How many seeding calls a message names before it counts the rest.
_MAX_NAMED = 4


@dataclass(frozen=True)
class SeededAlike:
    """What seeds a loader's workers alike on every rank, as its message says it."""

    text: str
    #: The evidence that the (first named) run is distributed.
    job: Evidence
    #: Every named seeding rests on a setting assumed the same on every rank.
    assumed: bool
    #: Every seeding call it names, with the helper calls that run them (the finding's
    #: related places; the message names the first few).
    places: tuple[Location, ...]


def _rng_names(rngs: Iterable[str]) -> str:
    """Name global RNGs as messages do, in the order torch seeds them: "torch, `random` and
    NumPy"."""
    order = {name: index for index, name in enumerate(WORKER_SEEDED_RNGS)}
    shown = {"numpy": "NumPy", "random": "`random`", "torch": "torch"}
    ordered = sorted(rngs, key=lambda name: (order.get(name, len(order)), name))
    names = [shown.get(name, f"`{name}`") for name in ordered]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _safety(safe: bool) -> Safety:
    return Safety.SAFE if safe else Safety.UNSAFE
