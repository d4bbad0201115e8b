"""Drives the chaos-gate sandbox through boto3 (botocore's own serializers and SigV4 signer) and prints
one JSON object of observations for test/sandbox/boto3.test.ts to assert on.

Environment: SANDBOX_AWS (endpoint), RIGHT_KEY / RIGHT_SECRET (the sandbox's configured credentials).
"""
import json
import os
import sys
from datetime import datetime, timedelta, timezone

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

ENDPOINT = os.environ["SANDBOX_AWS"]
KEY = os.environ["RIGHT_KEY"]
SECRET = os.environ["RIGHT_SECRET"]
CONFIG = Config(retries={"max_attempts": 1, "mode": "standard"})


def client(service, secret=SECRET):
    return boto3.client(
        service,
        endpoint_url=ENDPOINT,
        region_name="us-east-1",
        aws_access_key_id=KEY,
        aws_secret_access_key=secret,
        config=CONFIG,
    )


def error_of(call):
    try:
        call()
        return None
    except ClientError as e:
        return {
            "code": e.response["Error"]["Code"],
            "status": e.response["ResponseMetadata"]["HTTPStatusCode"],
            "message": e.response["Error"].get("Message", ""),
        }


out = {}
fis = client("fis")
cw = client("cloudwatch")

# GetMetricStatistics: put a minute of 1-second datapoints, read them back per minute.
now = datetime.now(timezone.utc).replace(second=0, microsecond=0) - timedelta(minutes=2)
cw.put_metric_data(
    Namespace="Boto3/Contract",
    MetricData=[
        {
            "MetricName": "Latency",
            "Dimensions": [{"Name": "Service", "Value": "shop"}],
            "Timestamp": now + timedelta(seconds=i),
            "Value": float(i + 1),
            "Unit": "Milliseconds",
            "StorageResolution": 1,
        }
        for i in range(60)
    ],
)
stats = cw.get_metric_statistics(
    Namespace="Boto3/Contract",
    MetricName="Latency",
    Dimensions=[{"Name": "Service", "Value": "shop"}],
    StartTime=now,
    EndTime=now + timedelta(minutes=1),
    Period=60,
    Statistics=["Sum", "Maximum", "SampleCount"],
)
out["getMetricStatistics"] = [
    {"Sum": d["Sum"], "Maximum": d["Maximum"], "SampleCount": d["SampleCount"], "Unit": d["Unit"]}
    for d in stats["Datapoints"]
]

# Metrics Insights through GetMetricData.
insights = cw.get_metric_data(
    MetricDataQueries=[
        {
            "Id": "q",
            "Expression": 'SELECT MAX(Latency) FROM SCHEMA("Boto3/Contract", Service) WHERE Service = \'shop\'',
            "Period": 60,
        }
    ],
    StartTime=now,
    EndTime=now + timedelta(minutes=1),
)
out["insights"] = [r["Values"] for r in insights["MetricDataResults"]]

# FIS: a PT15S partition is refused when the template is created, so it can never run; PT1M is taken.
template = {
    "description": "boto3 contract",
    "roleArn": "arn:aws:iam::123456789012:role/FisExperimentRole",
    "stopConditions": [{"source": "none"}],
    "targets": {
        "redis": {
            "resourceType": "aws:ec2:subnet",
            "resourceTags": {"Environment": "staging-chaos", "chaos-target": "redis-pay-primary-01"},
            "selectionMode": "COUNT(1)",
        }
    },
    "actions": {
        "partition": {
            "actionId": "aws:network:disrupt-connectivity",
            "parameters": {"duration": "PT15S", "scope": "all"},
            "targets": {"Subnets": "redis"},
        }
    },
}
out["pt15s"] = error_of(lambda: fis.create_experiment_template(**template))
template["actions"]["partition"]["parameters"]["duration"] = "PT1M"
created = fis.create_experiment_template(**template)["experimentTemplate"]
out["pt1m"] = created["actions"]["partition"]["parameters"]["duration"]
experiment = fis.start_experiment(experimentTemplateId=created["id"])["experiment"]
out["startedState"] = experiment["state"]["status"]
fis.stop_experiment(id=experiment["id"])

# Multi-account: a target account configuration through boto3.
multi = dict(template, experimentOptions={"accountTargeting": "multi-account"})
multi_id = fis.create_experiment_template(**multi)["experimentTemplate"]["id"]
fis.create_target_account_configuration(
    experimentTemplateId=multi_id,
    accountId="210987654321",
    roleArn="arn:aws:iam::210987654321:role/FisTargetRole",
    description="staging",
)
out["targetAccounts"] = [
    c["accountId"]
    for c in fis.list_target_account_configurations(experimentTemplateId=multi_id)["targetAccountConfigurations"]
]

# Signatures: the right secret passes (every call above), a wrong one is refused by every protocol.
out["wrongFis"] = error_of(lambda: client("fis", "wrong-secret").list_experiment_templates())
out["wrongCloudWatch"] = error_of(lambda: client("cloudwatch", "wrong-secret").describe_alarms())
out["wrongTagging"] = error_of(lambda: client("resourcegroupstaggingapi", "wrong-secret").get_resources())
out["rightTagging"] = len(client("resourcegroupstaggingapi").get_resources()["ResourceTagMappingList"]) > 0

json.dump(out, sys.stdout)
