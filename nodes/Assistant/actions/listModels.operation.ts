import type { INodeProperties } from 'n8n-workflow';

import type { ModelEntry } from '../../shared/api';
import { listOperation } from './listOf';
import { optionsCollection } from '../../shared/parameters/requestOptions';

/** List Models: one item per entry of GET /models/available (docs/api.md#models). */

export const description: INodeProperties[] = [optionsCollection('listModels')];

export const execute = listOperation<ModelEntry>('models', '/models/available');
